package server_test

import (
	"crypto/ed25519"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// echo sends "hi" on c and checks that the echo room answers with the
// sender's player id.
func echo(t *testing.T, c *transport.Conn, player byte) {
	t.Helper()
	if err := c.Send(lanes.Orders, []byte("hi")); err != nil {
		t.Fatal(err)
	}
	c.Flush()
	tm, err := c.Receive(t.Context())
	if err != nil || string(tm.Data) != string([]byte{player, 'h', 'i'}) {
		t.Fatalf("echo to player %d: %q, %v", player, tm.Data, err)
	}
}

// TestLateJoinSeam: a model that takes rejoins and spectators gets them
// while it plays. Each player's JoinAccepted carries a rejoin secret; a
// player whose connection ended takes its seat again with it (the room
// sees the old connection's end, then the new one), a rejoin with a wrong
// secret or player is refused, a rejoin while the old connection lives
// takes the seat over and closes the old one; spectators get player 0 up
// to the model's limit. Lockstep, which says nothing, refuses both as
// unsupported.
func TestLateJoinSeam(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var echoed atomic.Uint64
		m := echoModel(&echoed)
		m.Rejoin, m.MaxSpectators = true, 1
		h := newModelHarness(t, server.Config{Models: []room.Model{m}, DefaultModel: "echo", MatchTypes: map[string]string{"ranked": "lockstep"}})
		defer h.close()

		// Before the room plays there is nothing to watch or rejoin.
		a, ma := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2})
		_, mr := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2, As: join.AsSpectator})
		wantRefused(t, mr, join.RefuseNotPlaying)
		b, mb := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2})
		accA, okA := ma.(*join.JoinAccepted)
		accB, okB := mb.(*join.JoinAccepted)
		if !okA || !okB || accA.Secret.IsZero() || accB.Secret.IsZero() || accA.Secret == accB.Secret {
			t.Fatalf("joins: %+v %+v", ma, mb)
		}
		echo(t, a, 1)

		// Wrong secret, wrong player, an unknown room.
		for _, j := range []join.JoinRoom{
			{Room: "cup", RoomSize: 2, As: join.AsRejoin, Player: 1, Secret: accB.Secret},
			{Room: "cup", RoomSize: 2, As: join.AsRejoin, Player: 3, Secret: accA.Secret},
			{Room: "cup", RoomSize: 2, As: join.AsRejoin, Player: 1, Secret: join.RejoinSecret{1}},
		} {
			_, m := h.joinWith(&j)
			wantRefused(t, m, join.RefuseRejoinDenied)
		}
		_, mr = h.joinWith(&join.JoinRoom{Room: "nope", RoomSize: 2, As: join.AsRejoin, Player: 1, Secret: accA.Secret})
		wantRefused(t, mr, join.RefuseNotPlaying)

		// Player 1 drops and comes back with its secret.
		a.Close()
		time.Sleep(time.Second)
		a2, m2 := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2, As: join.AsRejoin, Player: 1, Secret: accA.Secret})
		if acc, ok := m2.(*join.JoinAccepted); !ok || acc.Player != 1 || acc.Secret != accA.Secret {
			t.Fatalf("rejoin: %+v", m2)
		}
		echo(t, a2, 1)

		// Player 2 rejoins while its first connection still lives: the
		// new one takes the seat, the old one is closed.
		b2, m3 := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2, As: join.AsRejoin, Player: 2, Secret: accB.Secret})
		if acc, ok := m3.(*join.JoinAccepted); !ok || acc.Player != 2 {
			t.Fatalf("take-over: %+v", m3)
		}
		echo(t, b2, 2)
		time.Sleep(time.Second)
		if !closed(t, b) {
			t.Error("the taken-over connection is still open")
		}

		// One spectator, then the limit.
		s1, ms := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2, As: join.AsSpectator})
		if acc, ok := ms.(*join.JoinAccepted); !ok || acc.Player != 0 || !acc.Secret.IsZero() {
			t.Fatalf("spectator: %+v", ms)
		}
		echo(t, s1, 0)
		_, ms = h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2, As: join.AsSpectator})
		wantRefused(t, ms, join.RefuseRoomFull)
		st := h.srv.Stats()
		if len(st.Rooms) != 1 || st.Rooms[0].Players != 2 || st.Rooms[0].Spectators != 1 {
			t.Fatalf("rooms %+v", st.Rooms)
		}
		// The spectator leaves: its seat is free for the next.
		s1.Close()
		time.Sleep(time.Second)
		s2, ms := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2, As: join.AsSpectator})
		if _, ok := ms.(*join.JoinAccepted); !ok {
			t.Fatalf("second spectator: %+v", ms)
		}
		echo(t, s2, 0)

		// Lockstep takes neither.
		l1, ml := h.joinWith(&join.JoinRoom{Room: "ls", RoomSize: 1, MatchType: "ranked"})
		if acc, ok := ml.(*join.JoinAccepted); !ok || !acc.Secret.IsZero() {
			t.Fatalf("lockstep join: %+v", ml)
		}
		defer l1.Close()
		_, ml = h.joinWith(&join.JoinRoom{Room: "ls", RoomSize: 1, As: join.AsSpectator})
		wantRefused(t, ml, join.RefuseUnsupported)
		_, ml = h.joinWith(&join.JoinRoom{Room: "ls", RoomSize: 1, As: join.AsRejoin, Player: 1, Secret: join.RejoinSecret{1}})
		wantRefused(t, ml, join.RefuseUnsupported)
		for _, c := range []*transport.Conn{a2, b2, s2} {
			c.Close()
		}
	})
}

// TestRejoinNeedsTheSameToken: on a relay that requires connect tokens, a
// seat taken with a token is rejoined only by a connection whose token
// names the same player key: another player of the room holding the
// seat's secret is refused.
func TestRejoinNeedsTheSameToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var echoed atomic.Uint64
		m := echoModel(&echoed)
		m.Rejoin = true
		tr := newTokenRelay(t, m)
		defer tr.close()
		later := time.Now().Add(time.Hour)
		alice, bob := seededKey(3), seededKey(4)
		joinAs := func(key ed25519.PrivateKey, j *join.JoinRoom) (*transport.Conn, join.Message) {
			c, err := tr.dial(key, tr.token(tr.matchmaker, key, "cup", later), false)
			if err != nil {
				t.Fatal(err)
			}
			sendJoin(t, c, j)
			return c, reply(t, c)
		}
		a, ma := joinAs(alice, &join.JoinRoom{Room: "cup", RoomSize: 2})
		b, _ := joinAs(bob, &join.JoinRoom{Room: "cup", RoomSize: 2})
		accA, ok := ma.(*join.JoinAccepted)
		if !ok {
			t.Fatalf("alice: %+v", ma)
		}
		a.Close()
		time.Sleep(time.Second)
		rejoin := &join.JoinRoom{Room: "cup", RoomSize: 2, As: join.AsRejoin, Player: accA.Player, Secret: accA.Secret}
		b2, m2 := joinAs(bob, rejoin)
		wantRefused(t, m2, join.RefuseRejoinDenied)
		b2.Close()
		a2, m3 := joinAs(alice, rejoin)
		if acc, ok := m3.(*join.JoinAccepted); !ok || acc.Player != accA.Player {
			t.Fatalf("alice's rejoin: %+v", m3)
		}
		echo(t, a2, byte(accA.Player))
		a2.Close()
		b.Close()
	})
}

// TestLateJoinNewPlayers: a model with LateJoin takes new connections as
// players while its room plays, in the seat of a player whose connection
// ended (the room sees that end, then the new connection), and refuses
// them as full while every seat is taken; lockstep, which does not
// declare it, refuses a player joining its playing room as before.
func TestLateJoinNewPlayers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var echoed atomic.Uint64
		m := echoModel(&echoed)
		m.LateJoin = true
		h := newModelHarness(t, server.Config{Models: []room.Model{m}, DefaultModel: "echo", MatchTypes: map[string]string{"ranked": "lockstep"}})
		defer h.close()

		a, _ := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2})
		b, _ := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2})
		echo(t, a, 1)
		_, mf := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2})
		wantRefused(t, mf, join.RefuseRoomFull)

		// Player 1 leaves; a new connection takes its seat, late.
		a.Close()
		time.Sleep(time.Second)
		c, mc := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2})
		if acc, ok := mc.(*join.JoinAccepted); !ok || acc.Player != 1 || acc.NetworkModel != "echo" {
			t.Fatalf("late join: %+v", mc)
		}
		echo(t, c, 1)
		echo(t, b, 2)
		_, mf = h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2})
		wantRefused(t, mf, join.RefuseRoomFull)
		_, ms := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 3})
		wantRefused(t, ms, join.RefuseSizeMismatch)
		if st := h.srv.Stats(); len(st.Rooms) != 1 || st.Rooms[0].Players != 2 {
			t.Fatalf("rooms %+v", st.Rooms)
		}

		// Lockstep refuses a new player in its playing room.
		l1, _ := h.joinWith(&join.JoinRoom{Room: "ls", RoomSize: 2, MatchType: "ranked"})
		l2, _ := h.joinWith(&join.JoinRoom{Room: "ls", RoomSize: 2, MatchType: "ranked"})
		l1.Close()
		time.Sleep(time.Second)
		_, ml := h.joinWith(&join.JoinRoom{Room: "ls", RoomSize: 2, MatchType: "ranked"})
		wantRefused(t, ml, join.RefuseRoomFull)
		for _, c := range []*transport.Conn{b, c, l2} {
			c.Close()
		}
	})
}
