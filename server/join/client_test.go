package join_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// scripted runs Join against a server that reads the JoinRoom and then
// sends answers, each on its lane; it returns Join's seat, the JoinRoom
// the server read and Join's error.
func scripted(t *testing.T, req join.Request, answers ...transport.Message) (join.Seat, *join.JoinRoom, error) {
	t.Helper()
	var (
		seat join.Seat
		err  error
		got  *join.JoinRoom
	)
	synctest.Test(t, func(t *testing.T) {
		mn := netsim.NewMemNetwork()
		tc := lanes.TransportConfig()
		spc, _ := mn.ListenPacket("")
		l, e := transport.Listen(t.Context(), spc, tc)
		if e != nil {
			t.Fatal(e)
		}
		defer l.Close()
		go func() {
			c, err := l.Accept(context.Background())
			if err != nil {
				return
			}
			defer c.Close()
			tm, err := c.Receive(context.Background())
			if err != nil {
				return
			}
			m, _ := join.Parse(tm.Data)
			got, _ = m.(*join.JoinRoom)
			for _, a := range answers {
				c.Send(a.Channel, a.Data)
			}
			c.Flush()
			c.Receive(context.Background()) // until the client closes
		}()
		cpc, _ := mn.ListenPacket("")
		conn, e := transport.Dial(t.Context(), cpc, l.Addr(), tc)
		if e != nil {
			t.Fatal(e)
		}
		seat, err = join.Join(t.Context(), conn, req)
		conn.Close()
		synctest.Wait()
	})
	return seat, got, err
}

func orders(t *testing.T, m join.Message) transport.Message {
	t.Helper()
	b, err := m.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	return transport.Message{Channel: lanes.Orders, Data: b}
}

// TestJoinSeated: the request goes out as one JoinRoom; the seat is the
// JoinAccepted's; a model's message on another lane before the answer
// is skipped.
func TestJoinSeated(t *testing.T) {
	secret := join.RejoinSecret{9, 15: 9}
	req := join.Request{Room: "cup", RoomSize: 4, NetworkModel: "fog_authoritative", MatchType: "ranked"}
	seat, got, err := scripted(t, req,
		transport.Message{Channel: lanes.State, Data: []byte{0x01, 2, 3}},
		orders(t, &join.JoinAccepted{Player: 3, RoomSize: 4, TickRate: 20, NetworkModel: "fog_authoritative", Secret: secret}))
	if err != nil {
		t.Fatal(err)
	}
	want := join.Seat{Player: 3, RoomSize: 4, TickRate: 20, NetworkModel: "fog_authoritative", Secret: secret}
	if seat != want {
		t.Errorf("seat %+v, want %+v", seat, want)
	}
	if got == nil || *got != (join.JoinRoom{Room: "cup", RoomSize: 4, NetworkModel: "fog_authoritative", MatchType: "ranked"}) {
		t.Errorf("server read %+v", got)
	}
}

// TestJoinRefusedIsTyped: every reason reaches the caller as a
// *JoinError matching ErrRefused and that reason's sentinel.
func TestJoinRefusedIsTyped(t *testing.T) {
	for r := range join.NumRefusalReasons {
		_, _, err := scripted(t, join.Request{Room: "r", RoomSize: 2}, orders(t, &join.JoinRefused{Reason: r, Detail: "because"}))
		var je *join.JoinError
		if !errors.As(err, &je) || je.Reason != r || je.Detail != "because" || !errors.Is(err, join.ErrRefused) || !errors.Is(err, r.Err()) {
			t.Errorf("%v: %v", r, err)
		}
	}
}

// TestJoinProtocolViolations: a seat other than the one asked for, or an
// answer that is not one, is ErrProtocol.
func TestJoinProtocolViolations(t *testing.T) {
	for _, tc := range []struct {
		name   string
		req    join.Request
		answer transport.Message
	}{
		{"other model", join.Request{Room: "r", RoomSize: 2, NetworkModel: "prediction"},
			orders(t, &join.JoinAccepted{Player: 1, RoomSize: 2, NetworkModel: "lockstep"})},
		{"spectator seated as a player", join.Request{Room: "r", As: join.AsSpectator},
			orders(t, &join.JoinAccepted{Player: 1, RoomSize: 2})},
		{"player seated as a spectator", join.Request{Room: "r", RoomSize: 2},
			orders(t, &join.JoinAccepted{Player: 0, RoomSize: 2})},
		{"rejoin in another seat", join.Request{Room: "r", As: join.AsRejoin, Player: 2, Secret: join.RejoinSecret{1}},
			orders(t, &join.JoinAccepted{Player: 1, RoomSize: 2})},
		{"a JoinRoom back", join.Request{Room: "r", RoomSize: 2}, orders(t, &join.JoinRoom{Room: "r", RoomSize: 2})},
		{"garbage", join.Request{Room: "r", RoomSize: 2}, transport.Message{Channel: lanes.Orders, Data: []byte{0x20, 1}}},
	} {
		if _, _, err := scripted(t, tc.req, tc.answer); !errors.Is(err, join.ErrProtocol) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestJoinBadRequest: a request that cannot be encoded fails before
// anything is sent.
func TestJoinBadRequest(t *testing.T) {
	for _, req := range []join.Request{
		{Room: "r", RoomSize: 0},
		{Room: "r", RoomSize: 256},
		{Room: string(make([]byte, join.MaxRoomName+1)), RoomSize: 2},
		{Room: "r", As: join.AsRejoin, Player: 1}, // no secret
	} {
		if _, got, err := scripted(t, req); err == nil || got != nil {
			t.Errorf("%+v: %v, server read %+v", req, err, got)
		}
	}
}
