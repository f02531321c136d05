package server_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
)

// TestMalformedAndRejectedByKind: messages that do not decode and messages
// the relay core refuses are counted by the kind of their error.
func TestMalformedAndRejectedByKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, server.Config{})
		defer h.close()
		c1, m := h.join("k", 2)
		wantAccepted(t, m, 1, 2)
		_, m = h.join("k", 2)
		wantAccepted(t, m, 2, 2)
		synctest.Wait()

		for _, b := range [][]byte{
			{0xC0, 0x00, 0xEE},       // no such relay message
			{0xC0, 0x00, 0x44, 5, 1}, // SeedCommitments, truncated
		} {
			if err := c1.Send(lanes.Orders, b); err != nil {
				t.Fatal(err)
			}
		}
		send(t, c1, &msg.TickFrame{Tick: 1})         // relay → client only
		send(t, c1, &msg.OrderSubmit{Tick: 1})       // before play
		send(t, c1, &msg.SyncHash{Tick: 1, Hash: 7}) // before play
		time.Sleep(time.Millisecond)
		synctest.Wait()

		st := h.srv.Stats()
		if st.Malformed != 2 || st.MalformedByKind["unknown_type"] != 1 || st.MalformedByKind["malformed"] != 1 {
			t.Errorf("malformed %d by kind %v", st.Malformed, st.MalformedByKind)
		}
		if st.Rejected != 3 || st.RejectedByKind["unexpected"] != 1 || st.RejectedByKind["phase"] != 2 {
			t.Errorf("rejected %d by kind %v", st.Rejected, st.RejectedByKind)
		}
		if len(st.MalformedByKind) != 5 || len(st.RejectedByKind) != 9 {
			t.Errorf("not every kind listed: %v %v", st.MalformedByKind, st.RejectedByKind)
		}
	})
}
