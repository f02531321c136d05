package lockstep

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/protocol"
)

// catchupNet is a network model catching up with queued ticks.
type catchupNet struct {
	next, last uint64
}

func (n *catchupNet) SubmitOrder(protocol.TimestampedOrder) {}
func (n *catchupNet) PollTick() (protocol.TickOrders, bool) {
	if n.next > n.last {
		return protocol.TickOrders{}, false
	}
	n.next++
	return protocol.TickOrders{Tick: n.next - 1}, true
}
func (n *catchupNet) ReportSyncHash(uint64, uint64) {}
func (n *catchupNet) Status() Status {
	if n.next > n.last {
		return StatusPlaying
	}
	return StatusCatchingUp
}
func (n *catchupNet) Diagnostics() Diagnostics      { return Diagnostics{} }
func (n *catchupNet) SnapshotWanted(uint64) bool    { return false }
func (n *catchupNet) DonateSnapshot(uint64, []byte) {}
func (n *catchupNet) ReceivedSnapshot() (uint64, []byte, Agreed, bool) {
	return 0, nil, Agreed{}, false
}
func (n *catchupNet) SnapshotChecked(uint64, bool) {}

// costlySim takes cost of the clock per tick.
type costlySim struct {
	clock *time.Duration
	cost  time.Duration
}

func (s costlySim) ApplyTick(protocol.TickOrders) error { *s.clock += s.cost; return nil }
func (s costlySim) StateHash() uint64                   { return 0 }

type noInput struct{}

func (noInput) Orders(uint64) []protocol.TimestampedOrder { return nil }

// TestCatchupPacing: while catching up, a step runs at most 30 ticks and
// stops once the ticks took 80% of a 1/60 s frame; with a tick costing
// 1 ms that is 14 ticks (13.3 ms), with free ticks 30. Out of catch-up a
// step with input runs one tick.
func TestCatchupPacing(t *testing.T) {
	for _, c := range []struct {
		cost time.Duration
		want []int
	}{
		{0, []int{30, 30, 30, 10, 0}},
		{time.Millisecond, []int{14, 14, 14, 14, 14, 14, 14, 2, 0}},
	} {
		var now time.Duration
		net := &catchupNet{next: 1, last: 100}
		g := GameLoop{Sim: costlySim{&now, c.cost}, Net: net, Input: noInput{}, Clock: func() time.Duration { return now }}
		g.applied, g.next = 1, 1 // as after loading a snapshot of tick 0
		var got []int
		for range c.want {
			n, err := g.Step()
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, n)
		}
		if len(got) != len(c.want) {
			t.Fatalf("cost %v: steps %v, want %v", c.cost, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("cost %v: steps %v, want %v", c.cost, got, c.want)
			}
		}
	}
	if b := (CatchupConfig{}).SimBudget(); b != time.Second/60*80/100 {
		t.Errorf("default budget %v", b)
	}
}
