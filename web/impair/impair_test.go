package impair

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/predict"
)

// echo is a network whose every sent message comes back.
type echo struct{ q [][]byte }

func (e *echo) Send(_ time.Duration, _ predict.Lane, m []byte) error {
	e.q = append(e.q, append([]byte(nil), m...))
	return nil
}

func (e *echo) Poll(_ time.Duration, deliver func([]byte)) error {
	for _, m := range e.q {
		deliver(m)
	}
	e.q = e.q[:0]
	return nil
}

func (e *echo) Close() error { return nil }

func encode(t *testing.T, m interface{ Append([]byte) ([]byte, error) }) []byte {
	t.Helper()
	b, err := m.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDelayBothWays: a message sent at 0 over a 100 ms path comes back
// after 200 ms, not before.
func TestDelayBothWays(t *testing.T) {
	n := New(&echo{}, 1)
	n.SetLink(netsim.Link{Latency: 100 * time.Millisecond})
	ping := encode(t, &predict.Ping{})
	if err := n.Send(0, predict.LaneSequenced, ping); err != nil {
		t.Fatal(err)
	}
	got := 0
	for ms := range 400 {
		if err := n.Poll(time.Duration(ms)*time.Millisecond, func([]byte) {
			if ms < 200 {
				t.Fatalf("delivered at %d ms, before the 200 ms round trip", ms)
			}
			got++
		}); err != nil {
			t.Fatal(err)
		}
	}
	if got != 1 {
		t.Fatalf("%d deliveries, want 1", got)
	}
}

// TestLossSparesReliable: at 100% loss nothing unreliable gets through,
// and every reliable message still does.
func TestLossSparesReliable(t *testing.T) {
	n := New(&echo{}, 1)
	n.SetLink(netsim.Link{Loss: 1})
	ping := encode(t, &predict.Ping{})
	event := encode(t, &predict.EventMessage{})
	for range 10 {
		_ = n.Send(0, predict.LaneSequenced, ping)
		_ = n.Send(0, predict.LaneReliable, event)
	}
	var got int
	_ = n.Poll(time.Second, func(m []byte) {
		if !reliable(m) {
			t.Fatal("an unreliable message got through a path losing everything")
		}
		got++
	})
	if got != 10 || n.Dropped() != 10 {
		t.Fatalf("%d reliable delivered, %d dropped; want 10 and 10", got, n.Dropped())
	}
}
