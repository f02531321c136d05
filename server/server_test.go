package server_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// harness is a server on an in-memory network and raw clients that speak
// the join exchange by hand.
type harness struct {
	t     *testing.T
	mn    *netsim.MemNetwork
	tc    transport.Config
	l     *transport.Listener
	srv   *server.Server
	done  chan error
	conns []*transport.Conn
}

func newHarness(t *testing.T, cfg server.Config) *harness {
	t.Helper()
	return newHarnessTransport(t, cfg, lanes.TransportConfig())
}

// newHarnessTransport starts a server with cfg on tc; the lockstep model
// is hosted first unless cfg names a model of that name.
func newHarnessTransport(t *testing.T, cfg server.Config, tc transport.Config) *harness {
	t.Helper()
	if !slices.ContainsFunc(cfg.Models, func(m room.Model) bool { return m.Name == room.Lockstep }) {
		cfg.Models = append([]room.Model{lockstepserver.Model(lockstepserver.Config{})}, cfg.Models...)
	}
	mn := netsim.NewMemNetwork()
	pc, err := mn.ListenPacket("")
	if err != nil {
		t.Fatal(err)
	}
	l, err := transport.Listen(t.Context(), pc, tc)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, mn: mn, tc: tc, l: l, srv: server.New(cfg), done: make(chan error, 1)}
	go func() { h.done <- h.srv.Serve(context.Background(), l) }()
	return h
}

func (h *harness) close() {
	for _, c := range h.conns {
		c.Close()
	}
	h.l.Close()
	if err := <-h.done; !errors.Is(err, transport.ErrClosed) {
		h.t.Errorf("Serve returned %v after the listener closed", err)
	}
	h.srv.Close()
}

// dial connects a raw client.
func (h *harness) dial() *transport.Conn {
	h.t.Helper()
	pc, err := h.mn.ListenPacket("")
	if err != nil {
		h.t.Fatal(err)
	}
	c, err := transport.Dial(h.t.Context(), pc, h.l.Addr(), h.tc)
	if err != nil {
		h.t.Fatal(err)
	}
	h.conns = append(h.conns, c)
	return c
}

// send encodes and sends m on its lane.
func send(t *testing.T, c *transport.Conn, m msg.Message) {
	t.Helper()
	b, err := msg.Codec{}.Append(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(lanes.Of(msg.IsSample(m)), b); err != nil {
		t.Fatal(err)
	}
	c.Flush()
}

// sendJoin encodes and sends j on the orders lane.
func sendJoin(t *testing.T, c *transport.Conn, j *join.JoinRoom) {
	t.Helper()
	b, err := j.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(lanes.Orders, b); err != nil {
		t.Fatal(err)
	}
	c.Flush()
}

// reply waits for the answer to a join: the first join message on the
// orders lane.
func reply(t *testing.T, c *transport.Conn) join.Message {
	t.Helper()
	for {
		tm, err := c.Receive(t.Context())
		if err != nil {
			t.Fatalf("waiting for the join answer: %v", err)
		}
		if tm.Channel != lanes.Orders {
			continue
		}
		m, err := join.Parse(tm.Data)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// join sends JoinRoom on a new connection and returns it with the answer.
func (h *harness) join(room string, size int) (*transport.Conn, join.Message) {
	h.t.Helper()
	c := h.dial()
	sendJoin(h.t, c, &join.JoinRoom{Room: room, RoomSize: uint8(size)})
	return c, reply(h.t, c)
}

func wantAccepted(t *testing.T, m join.Message, id protocol.PlayerID, size int) {
	t.Helper()
	a, ok := m.(*join.JoinAccepted)
	if !ok || a.Player != id || int(a.RoomSize) != size || a.TickRate != relay.DefaultTickRate || a.NetworkModel != "lockstep" {
		t.Fatalf("got %+v, want JoinAccepted{Player: %d, RoomSize: %d, TickRate: %d, NetworkModel: lockstep}", m, id, size, relay.DefaultTickRate)
	}
}

func wantRefused(t *testing.T, m join.Message, reason join.RefusalReason) {
	t.Helper()
	r, ok := m.(*join.JoinRefused)
	if !ok || r.Reason != reason || r.Detail == "" {
		t.Fatalf("got %+v, want JoinRefused{%v}", m, reason)
	}
}

// TestRoomLifecycle: seats in join order, refusals for a full room, a
// size mismatch, the game limit and a bad first message, a seat freed
// before the start, and the room's end when its players leave.
func TestRoomLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var events []relay.Event
		ls := lockstepserver.New(lockstepserver.Config{OnEvent: func(room string, ev relay.Event) {
			if room == "a" {
				events = append(events, ev)
			}
		}})
		h := newHarness(t, server.Config{MaxGames: 1, Models: []room.Model{ls.Model()}})
		defer h.close()

		a1, m := h.join("a", 3)
		wantAccepted(t, m, 1, 3)
		a2, m := h.join("a", 3)
		wantAccepted(t, m, 2, 3)
		_, m = h.join("b", 2)
		wantRefused(t, m, join.RefuseServerFull)
		_, m = h.join("a", 4)
		wantRefused(t, m, join.RefuseSizeMismatch)
		_, m = h.join("c", relay.MaxPlayers+1)
		wantRefused(t, m, join.RefuseRoomSize)
		bad := h.dial()
		send(t, bad, &msg.SyncHash{Tick: 1})
		wantRefused(t, reply(t, bad), join.RefuseBadRequest)

		// Player 1 leaves before the room is full: the next joiner takes
		// its seat.
		a1.Close()
		synctest.Wait()
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if st := h.srv.Stats(); st.WaitingRooms != 1 || st.Players != 1 || st.ActiveGames != 0 {
			t.Fatalf("after a leave: %+v", st)
		}
		a3, m := h.join("a", 3)
		wantAccepted(t, m, 1, 3)
		a4, m := h.join("a", 3)
		wantAccepted(t, m, 3, 3)
		_, m = h.join("a", 3)
		wantRefused(t, m, join.RefuseRoomFull)

		// Garbage and a message no client may send are counted, not fatal.
		if err := a2.Send(lanes.Orders, []byte{0xFF, 1, 2}); err != nil {
			t.Fatal(err)
		}
		send(t, a2, &msg.TickFrame{Tick: 1})
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if lst := ls.Stats(); lst.Malformed != 1 || lst.Rejected != 1 {
			t.Errorf("malformed %d, rejected %d", lst.Malformed, lst.Rejected)
		}
		st := h.srv.Stats()
		if st.ActiveGames != 1 || st.Players != 3 || st.GamesStarted != 1 || st.JoinsRefused != 5 || len(st.Rooms) != 1 {
			t.Fatalf("with a full room: %+v", st)
		}
		time.Sleep(2 * time.Second) // a statistics refresh
		synctest.Wait()
		if r := h.srv.Stats().Rooms[0]; r.Name != "a" || r.Size != 3 || r.Players != 3 || r.Phase != "calibrating" || r.NetworkModel != room.Lockstep {
			t.Errorf("room stats %+v", r)
		}
		// The raw clients never answer calibration; they leave, and the
		// game ends.
		for _, c := range []*transport.Conn{a2, a3, a4} {
			c.Close()
		}
		time.Sleep(time.Second)
		synctest.Wait()
		st = h.srv.Stats()
		if st.ActiveGames != 0 || st.WaitingRooms != 0 || st.Players != 0 || st.GamesEnded != 1 || ls.Stats().Removals != 3 || len(st.Rooms) != 0 {
			t.Fatalf("after the game: %+v", st)
		}
		if st.BytesIn == 0 || st.BytesOut == 0 || st.MessagesOut == 0 {
			t.Errorf("no traffic counted: %+v", st)
		}
		removed := 0
		for _, ev := range events {
			if _, ok := ev.(relay.PlayerRemoved); ok {
				removed++
			}
		}
		if removed != 3 {
			t.Errorf("OnEvent saw %d removals, want 3", removed)
		}
		// The game slot is free again.
		c, m := h.join("b", 1)
		wantAccepted(t, m, 1, 1)
		c.Close()
	})
}

// TestJoinTimeout: a connection that never sends JoinRoom is closed.
func TestJoinTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, server.Config{JoinTimeout: time.Second})
		defer h.close()
		c := h.dial()
		defer c.Close()
		_, err := c.Receive(t.Context())
		if err == nil {
			t.Fatal("the silent connection received a message")
		}
	})
}

// TestCloseRefusesJoins: after Close, Serve has returned and rooms are
// gone.
func TestCloseEndsRooms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, server.Config{})
		c, m := h.join("x", 2)
		wantAccepted(t, m, 1, 2)
		h.srv.Close()
		if err := <-h.done; !errors.Is(err, server.ErrClosed) {
			t.Errorf("Serve returned %v, want ErrClosed", err)
		}
		if _, err := c.Receive(t.Context()); err == nil {
			t.Error("connection still open after Close")
		}
		c.Close()
		h.l.Close()
		if st := h.srv.Stats(); len(st.Rooms) != 0 {
			t.Errorf("rooms after Close: %+v", st.Rooms)
		}
	})
}
