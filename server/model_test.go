package server_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// echoModel is a network model for tests: its room sends every message
// back to its sender, prefixed with the sender's player id (0 for a
// spectator). It takes connections that join while it plays (rejoins,
// spectators) when the model says so.
func echoModel(echoed *atomic.Uint64) room.Model {
	return room.Model{
		Name:        "echo",
		MaxRoomSize: 2,
		MaxRooms:    1,
		TickRate:    60,
		Channels:    []transport.ChannelConfig{{ID: 9, Name: "echo", Reliability: transport.ReliableOrdered, Priority: transport.High, Weight: 1}},
		New: func(p room.Params) (room.Room, error) {
			return &echoRoom{p: p, echoed: echoed}, nil
		},
		Metrics: func() []admin.Metric {
			return []admin.Metric{{Name: "tickwire_echo_messages_total", Counter: true, Value: float64(echoed.Load())}}
		},
	}
}

type echoRoom struct {
	p      room.Params
	echoed *atomic.Uint64
}

func (r *echoRoom) Status() room.Status { return room.Status{Phase: "echoing"} }

func (r *echoRoom) Run(ctx context.Context) error {
	seats := slices.Clone(r.p.Seats)
	live := len(seats)
	var in []room.Inbound
	for live > 0 {
		select {
		case <-r.p.Inbox.Ready():
		case <-ctx.Done():
			return nil
		}
		in = r.p.Inbox.Take(in[:0])
		for _, m := range in {
			switch {
			case m.Err != nil:
				live--
			case m.Joined != nil:
				for m.Seat >= len(seats) {
					seats = append(seats, room.Seat{})
				}
				seats[m.Seat] = *m.Joined
				live++
			default:
				st := seats[m.Seat]
				st.Conn.Send(lanes.Orders, append([]byte{byte(st.Player)}, m.Msg.Data...))
				st.Conn.Flush()
				r.echoed.Add(1)
			}
		}
	}
	return nil
}

func (h *harness) joinWith(j *join.JoinRoom) (*transport.Conn, join.Message) {
	h.t.Helper()
	c := h.dial()
	sendJoin(h.t, c, j)
	return c, reply(h.t, c)
}

func modelConfig(echoed *atomic.Uint64) server.Config {
	return server.Config{Models: []room.Model{lockstepserver.Model(lockstepserver.Config{}), echoModel(echoed)}, MatchTypes: map[string]string{"tournament": "echo", "ranked": "lockstep"},
		AllowRequestedModel: true}
}

func newModelHarness(t *testing.T, cfg server.Config) *harness {
	t.Helper()
	tc, err := cfg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessTransport(t, cfg, tc)
	return h
}

// TestModelSeam: the server picks a room's network model (match type,
// then the request if allowed, then the default), reports it in
// JoinAccepted, refuses what does not fit with a reason, hands a full
// room's seats to the model's room, and shows the model in its figures.
func TestModelSeam(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var echoed atomic.Uint64
		h := newModelHarness(t, modelConfig(&echoed))
		defer h.close()

		a, m := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2, MatchType: "tournament"})
		if acc, ok := m.(*join.JoinAccepted); !ok || acc.NetworkModel != "echo" || acc.TickRate != 60 || acc.Player != 1 {
			t.Fatalf("tournament join: %+v", m)
		}
		for _, tc := range []struct {
			j    join.JoinRoom
			want join.RefusalReason
		}{
			{join.JoinRoom{Room: "cup", RoomSize: 2, NetworkModel: "lockstep"}, join.RefuseModelMismatch},
			{join.JoinRoom{Room: "cup", RoomSize: 2, MatchType: "ranked"}, join.RefuseModelMismatch},
			{join.JoinRoom{Room: "x", RoomSize: 2, NetworkModel: "echo"}, join.RefuseServerFull}, // the model's one room
			{join.JoinRoom{Room: "x", RoomSize: 3, MatchType: "tournament"}, join.RefuseRoomSize},
			{join.JoinRoom{Room: "x", RoomSize: 2, MatchType: "ranked", NetworkModel: "echo"}, join.RefuseModelMismatch},
			{join.JoinRoom{Room: "x", RoomSize: 2, NetworkModel: "state_sync"}, join.RefuseModelUnavailable},
		} {
			_, m := h.joinWith(&tc.j)
			wantRefused(t, m, tc.want)
		}
		// A request the configuration lets choose; the default otherwise.
		_, m = h.joinWith(&join.JoinRoom{Room: "plain", RoomSize: 2})
		if acc, ok := m.(*join.JoinAccepted); !ok || acc.NetworkModel != "lockstep" {
			t.Fatalf("plain join: %+v", m)
		}

		b, m := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2, NetworkModel: "echo", MatchType: "tournament"})
		if acc, ok := m.(*join.JoinAccepted); !ok || acc.Player != 2 || acc.NetworkModel != "echo" {
			t.Fatalf("second join: %+v", m)
		}
		// The room is full and the model's room runs: it echoes.
		for i, c := range []*transport.Conn{a, b} {
			if err := c.Send(lanes.Orders, []byte("hi")); err != nil {
				t.Fatal(err)
			}
			c.Flush()
			tm, err := c.Receive(t.Context())
			if err != nil || string(tm.Data) != string([]byte{byte(i + 1), 'h', 'i'}) {
				t.Fatalf("echo to player %d: %q, %v", i+1, tm.Data, err)
			}
		}
		st := h.srv.Stats()
		if len(st.Models) != 2 || st.Models[0].Name != "lockstep" || st.Models[1].Name != "echo" ||
			st.Models[1].ActiveGames != 1 || st.Models[1].Players != 2 || st.Models[0].WaitingRooms != 1 {
			t.Fatalf("models %+v", st.Models)
		}
		if st.Refused[join.RefuseModelMismatch] != 3 || st.JoinsRefused != 6 {
			t.Errorf("refused %v (%d)", st.Refused, st.JoinsRefused)
		}
		var metrics []string
		for _, m := range st.AdminMetrics() {
			metrics = append(metrics, m.Name)
		}
		if got := strings.Join(metrics, " "); !strings.Contains(got, "tickwire_echo_messages_total") || !strings.Contains(got, "tickwire_relay_joins_refused_total") {
			t.Errorf("admin metrics %s", got)
		}
		for _, r := range st.Rooms {
			if r.Name == "cup" && (r.Phase != "echoing" || r.NetworkModel != "echo" || r.MatchType != "tournament") {
				t.Errorf("room %+v", r)
			}
		}
		// The players leave: the model's room ends and its slot is free.
		a.Close()
		b.Close()
		time.Sleep(time.Second)
		synctest.Wait()
		st = h.srv.Stats()
		if st.Models[1].ActiveGames != 0 || st.GamesEnded != 1 || echoed.Load() != 2 {
			t.Fatalf("after the echo game: %+v, echoed %d", st.Models[1], echoed.Load())
		}
	})
}

// TestConfigCheck: Check refuses what New would quietly accept.
func TestConfigCheck(t *testing.T) {
	var echoed atomic.Uint64
	ok := modelConfig(&echoed)
	if err := ok.Check(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	tc, err := ok.Transport()
	if err != nil || len(tc.Channels) != len(lanes.Channels())+1 {
		t.Fatalf("transport: %d channels, %v", len(tc.Channels), err)
	}
	clash := echoModel(&echoed)
	clash.Name = "clash"
	clash.Channels = []transport.ChannelConfig{{ID: lanes.Orders, Name: "orders", Reliability: transport.Unreliable}}
	noNew := echoModel(&echoed)
	noNew.Name, noNew.New = "nonew", nil
	for _, tc := range []struct {
		name string
		cfg  server.Config
		want string
	}{
		{"duplicate", server.Config{Models: []room.Model{echoModel(&echoed), echoModel(&echoed)}}, "twice"},
		{"no model", server.Config{}, "no network model"},
		{"default not hosted", server.Config{Models: []room.Model{echoModel(&echoed)}, DefaultModel: "fog_authoritative"}, "not hosted"},
		{"match type not hosted", server.Config{Models: []room.Model{echoModel(&echoed)}, MatchTypes: map[string]string{"cup": "nope"}}, "not hosted"},
		{"channel clash", server.Config{Models: []room.Model{clash}}, "channel"},
		{"no New", server.Config{Models: []room.Model{noNew}}, "no New"},
	} {
		if err := tc.cfg.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// TestModelChoice: without AllowRequestedModel a request other than the
// default is refused as a mismatch, one the server does not host as
// unavailable, and the default is what an empty request gets.
func TestModelChoice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var echoed atomic.Uint64
		cfg := modelConfig(&echoed)
		cfg.AllowRequestedModel = false
		cfg.DefaultModel = "echo"
		h := newModelHarness(t, cfg)
		defer h.close()
		_, m := h.joinWith(&join.JoinRoom{Room: "a", RoomSize: 2, NetworkModel: "lockstep"})
		wantRefused(t, m, join.RefuseModelMismatch)
		_, m = h.joinWith(&join.JoinRoom{Room: "a", RoomSize: 2, NetworkModel: "prediction"})
		wantRefused(t, m, join.RefuseModelUnavailable)
		_, m = h.joinWith(&join.JoinRoom{Room: "a", RoomSize: 2, MatchType: "ranked", NetworkModel: "lockstep"})
		if acc, ok := m.(*join.JoinAccepted); !ok || acc.NetworkModel != "lockstep" {
			t.Fatalf("ranked lockstep join: %+v", m)
		}
		_, m = h.joinWith(&join.JoinRoom{Room: "b", RoomSize: 2})
		if acc, ok := m.(*join.JoinAccepted); !ok || acc.NetworkModel != "echo" {
			t.Fatalf("join with no request: %+v", m)
		}
	})
}

// TestModelRoomLifecycle: a model whose room cannot start has its seats
// closed; a room that closes a seat (CloseSeat) learns of the seat's end
// from its Inbox; when Run returns the server closes the seats left.
func TestModelRoomLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ended := make(chan room.Inbound, 1)
		models := []room.Model{
			{Name: "broken", MaxRoomSize: 2, New: func(room.Params) (room.Room, error) { return nil, errors.New("no map") }},
			{Name: "kicker", MaxRoomSize: 2, New: func(p room.Params) (room.Room, error) { return &kickRoom{p: p, ended: ended}, nil }},
		}
		h := newModelHarness(t, server.Config{Models: models, AllowRequestedModel: true})
		defer h.close()
		a, m := h.joinWith(&join.JoinRoom{Room: "b", RoomSize: 1, NetworkModel: "broken"})
		if _, ok := m.(*join.JoinAccepted); !ok {
			t.Fatalf("broken join: %+v", m)
		}
		time.Sleep(time.Second)
		if !closed(t, a) {
			t.Error("a seat of a room that could not start is still open")
		}
		k1, _ := h.joinWith(&join.JoinRoom{Room: "k", RoomSize: 2, NetworkModel: "kicker"})
		k2, _ := h.joinWith(&join.JoinRoom{Room: "k", RoomSize: 2, NetworkModel: "kicker"})
		in := <-ended
		time.Sleep(time.Second)
		if in.Seat != 0 || in.Err == nil || !closed(t, k1) {
			t.Fatalf("the kicked seat: %+v", in)
		}
		// Run returned: the other seat is closed by the server.
		if !closed(t, k2) {
			t.Error("the seat left open when Run returned is still open")
		}
		if st := h.srv.Stats(); st.GamesStarted != 1 || st.GamesEnded != 1 || len(st.Rooms) != 0 || st.Players != 0 {
			t.Errorf("stats %+v", st)
		}
	})
}

// kickRoom closes seat 0, waits for its end and returns.
type kickRoom struct {
	p     room.Params
	ended chan room.Inbound
}

func (r *kickRoom) Status() room.Status { return room.Status{Phase: "kicking"} }

func (r *kickRoom) Run(ctx context.Context) error {
	r.p.CloseSeat(0, "kicked")
	for {
		select {
		case <-r.p.Inbox.Ready():
		case <-ctx.Done():
			return ctx.Err()
		}
		for _, in := range r.p.Inbox.Take(nil) {
			if in.Err != nil {
				r.ended <- in
				return nil
			}
		}
	}
}
