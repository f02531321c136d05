package server_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// closed reports whether c's connection has ended (the server closed it).
func closed(t *testing.T, c *transport.Conn) bool {
	t.Helper()
	synctest.Wait()
	return c.State() != transport.StateConnected
}

// TestWaitingRoomExpires: a room that does not fill within the waiting
// timeout (by default two minutes on the server clock) is closed, counted
// and its name free again; a room that fills in time does not expire.
func TestWaitingRoomExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, server.Config{})
		defer h.close()
		a, m := h.join("slow", 3)
		wantAccepted(t, m, 1, 3)
		time.Sleep(time.Minute)
		b, m := h.join("slow", 3)
		wantAccepted(t, m, 2, 3)
		time.Sleep(server.DefaultWaitingTimeout - time.Minute - time.Millisecond)
		if closed(t, a) || h.srv.Stats().WaitingRooms != 1 {
			t.Fatal("the room expired early")
		}
		time.Sleep(2 * time.Millisecond)
		if !closed(t, a) || !closed(t, b) {
			t.Fatal("the waiting room's connections are still open after the timeout")
		}
		st := h.srv.Stats()
		if st.RoomsExpired != 1 || st.WaitingRooms != 0 || st.Players != 0 || len(st.Rooms) != 0 {
			t.Fatalf("after expiry: %+v", st)
		}
		// The name is free: a new room, a new first seat.
		c, m := h.join("slow", 2)
		wantAccepted(t, m, 1, 2)
		d, m := h.join("slow", 2)
		wantAccepted(t, m, 2, 2)
		time.Sleep(3 * server.DefaultWaitingTimeout)
		if st := h.srv.Stats(); st.RoomsExpired != 1 || st.ActiveGames != 1 && st.GamesEnded != 1 {
			t.Errorf("a full room expired: %+v", st)
		}
		c.Close()
		d.Close()
	})
}

// TestWaitingTimeoutUsesServerClock: expiry is decided on the injected
// server clock: a clock that stands still keeps the room waiting however
// long the timer waits, and the room expires once the clock passes the
// deadline.
func TestWaitingTimeoutUsesServerClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var now atomic.Int64
		clock := func() time.Duration { return time.Duration(now.Load()) }
		h := newHarness(t, server.Config{WaitingTimeout: time.Minute, Clock: clock})
		defer h.close()
		a, m := h.join("r", 2)
		wantAccepted(t, m, 1, 2)
		time.Sleep(5 * time.Minute)
		if closed(t, a) {
			t.Fatal("the room expired on the wall clock")
		}
		now.Store(int64(time.Minute))
		time.Sleep(time.Minute)
		if !closed(t, a) || h.srv.Stats().RoomsExpired != 1 {
			t.Fatal("the room did not expire once the server clock passed its deadline")
		}
	})
}

// TestRoomLimits: a lockstep room beyond the configured size, more
// waiting rooms from one address than allowed, and a server at its
// default game limit are refused with their reasons; a room that starts
// stops counting against its creator's address.
func TestRoomLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, server.Config{Models: []room.Model{lockstepserver.Model(lockstepserver.Config{MaxRoomSize: 8})}, MaxWaitingPerAddr: 2})
		defer h.close()
		_, m := h.join("big", 9)
		wantRefused(t, m, join.RefuseRoomSize)
		_, m = h.join("a", 2)
		wantAccepted(t, m, 1, 2)
		b1, m := h.join("b", 2)
		wantAccepted(t, m, 1, 2)
		_, m = h.join("c", 2) // every test client dials from one address
		wantRefused(t, m, join.RefuseTooManyRooms)
		_, m = h.join("a", 2) // joining an existing room is fine
		wantAccepted(t, m, 2, 2)
		_, m = h.join("c", 2) // "a" started: its creator may wait in another
		wantAccepted(t, m, 1, 2)
		_, m = h.join("d", 2)
		wantRefused(t, m, join.RefuseTooManyRooms)
		// A waiting room that empties ends and no longer counts.
		b1.Close()
		time.Sleep(time.Second)
		_, m = h.join("d", 2)
		wantAccepted(t, m, 1, 2)
		st := h.srv.Stats()
		if st.Refused[join.RefuseRoomSize] != 1 || st.Refused[join.RefuseTooManyRooms] != 2 || st.JoinsRefused != 3 {
			t.Errorf("refusals %v", st.Refused)
		}
		if st.WaitingRooms != 2 || st.ActiveGames != 1 {
			t.Errorf("%d waiting rooms, %d games", st.WaitingRooms, st.ActiveGames)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, server.Config{MaxWaitingPerAddr: -1})
		defer h.close()
		for i := range server.DefaultMaxGames {
			_, m := h.join(fmt.Sprintf("g%d", i), 2)
			wantAccepted(t, m, 1, 2)
		}
		_, m := h.join("one-too-many", 2)
		wantRefused(t, m, join.RefuseServerFull)
	})
}

// TestRoomAllocatesLazily: a waiting room costs memory for the players
// it holds, not for the size its first joiner asked for: a room of 64
// costs about what a room of 2 does.
func TestRoomAllocatesLazily(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, server.Config{MaxWaitingPerAddr: -1})
		defer h.close()
		perRoom := func(prefix string, size int) uint64 {
			const rooms = 8
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			for i := range rooms {
				_, m := h.join(prefix+string(rune('a'+i)), size)
				wantAccepted(t, m, 1, size)
			}
			synctest.Wait()
			runtime.ReadMemStats(&ms)
			return (ms.TotalAlloc - before) / rooms
		}
		perRoom("warm", 2) // the first connections warm up pools
		small, large := perRoom("s", 2), perRoom("l", 64)
		t.Logf("bytes allocated per join (client and server): room of 2 %d, room of 64 %d", small, large)
		if large > small+16<<10 {
			t.Errorf("a room of 64 costs %d bytes more than a room of 2", large-small)
		}
	})
}
