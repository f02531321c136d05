package lockstepserver_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/internal/roomtest"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

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

// TestMalformedAndRejectedByKind: messages that do not decode and messages
// the relay core refuses are counted by the kind of their error, in the
// model's figures and on /metrics under the server's former names.
func TestMalformedAndRejectedByKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := lockstepserver.New(lockstepserver.Config{})
		s := roomtest.Start(t, l.Model(), server.Config{})
		defer s.Close()
		c1, _ := s.Join("k", 2, false)
		s.Join("k", 2, false)
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

		st := l.Stats()
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
