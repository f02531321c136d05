package server_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/transport"
)

// TestMatchEventsAndDrain: OnMatch hears a match's start (with its seats)
// and end (with an outcome); after Drain a join that would create a room
// is refused, a waiting room closes telling its player the server is
// shutting down, the playing room goes on until its players leave, and
// WaitRooms then returns.
func TestMatchEventsAndDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var echoed atomic.Uint64
		var mu sync.Mutex
		var events []server.MatchEvent
		cfg := modelConfig(&echoed)
		cfg.OnMatch = func(ev server.MatchEvent) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, ev)
		}
		h := newModelHarness(t, cfg)
		defer h.close()

		a, _ := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2, MatchType: "tournament"})
		b, _ := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2, MatchType: "tournament"})
		waiting, wm := h.joinWith(&join.JoinRoom{Room: "lobby", RoomSize: 2})
		if _, ok := wm.(*join.JoinAccepted); !ok {
			t.Fatalf("lobby join: %+v", wm)
		}
		synctest.Wait()
		mu.Lock()
		if len(events) != 1 || events[0].Ended || events[0].Room != "cup" || events[0].NetworkModel != "echo" ||
			events[0].MatchType != "tournament" || len(events[0].Players) != 2 || events[0].Players[1].Player != 2 {
			t.Fatalf("start events %+v", events)
		}
		mu.Unlock()

		h.srv.Drain()
		if !h.srv.Draining() {
			t.Fatal("not draining")
		}
		_, m := h.joinWith(&join.JoinRoom{Room: "new", RoomSize: 2})
		wantRefused(t, m, join.RefuseShutdown)
		time.Sleep(5 * time.Second) // the graceful close's handshake
		if !closed(t, waiting) {
			t.Error("a waiting room survived the drain")
		}
		if err := endOf(waiting); !strings.Contains(err.Error(), server.ShuttingDown) {
			t.Errorf("the waiting player was told %q, want %q", err, server.ShuttingDown)
		}
		if st := h.srv.Stats(); st.RoomsExpired != 0 || !st.Draining {
			t.Errorf("after the drain: %d rooms expired (the drain closes, no timeout), draining %v", st.RoomsExpired, st.Draining)
		}
		if n := h.srv.Rooms(); n != 1 {
			t.Fatalf("%d rooms during the drain, want the playing one", n)
		}
		done := make(chan bool)
		go func() { done <- h.srv.WaitRooms(context.Background(), time.Second) }()
		a.Close()
		b.Close()
		if !<-done {
			t.Fatal("WaitRooms gave up")
		}
		mu.Lock()
		defer mu.Unlock()
		if len(events) != 2 || !events[1].Ended || events[1].Seq != events[0].Seq || events[1].Outcome != server.OutcomeAbandoned {
			t.Fatalf("end event %+v", events)
		}
	})
}

// endOf is why c ended: the error Receive gives after its messages.
func endOf(c *transport.Conn) error {
	for {
		if _, err := c.Receive(context.Background()); err != nil {
			return err
		}
	}
}

// TestShutdownTellsPlayers: a match the server's shutdown cuts (a drain
// deadline passed) tells its players the server is shutting down, as its
// record's outcome says, not "game over".
func TestShutdownTellsPlayers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var echoed atomic.Uint64
		cfg := modelConfig(&echoed)
		outcome := make(chan string, 1)
		cfg.OnMatch = func(ev server.MatchEvent) {
			if ev.Ended {
				outcome <- ev.Outcome
			}
		}
		h := newModelHarness(t, cfg)
		a, _ := h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2})
		h.joinWith(&join.JoinRoom{Room: "cup", RoomSize: 2})
		synctest.Wait()
		go h.srv.Close()
		defer func() {
			for _, c := range h.conns {
				c.Close()
			}
			h.l.Close()
			<-h.done // Serve ends: the server closed
		}()
		if err := endOf(a); !strings.Contains(err.Error(), server.ShuttingDown) {
			t.Errorf("the player was told %q, want %q", err, server.ShuttingDown)
		}
		if o := <-outcome; o != server.OutcomeShutdown {
			t.Errorf("outcome %q", o)
		}
	})
}
