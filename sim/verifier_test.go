package sim

import (
	"errors"
	"testing"

	"github.com/tickwire/tickwire/protocol"
)

func TestDualSimVerifierReportsDivergence(t *testing.T) {
	v, err := NewDualSimVerifier(testMap(), Config{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if err := v.ApplyTick(protocol.TickOrders{Tick: v.Primary().Tick()}); err != nil {
			t.Fatal(err)
		}
	}
	// Stand-in for a non-deterministic code path: the shadow's tank loses
	// one point of health that the primary's keeps.
	tank := firstOf(v.shadow, 2, TypeTank)
	i, _ := v.shadow.slotOf(tank)
	v.shadow.states[i].Health--
	err = v.ApplyTick(protocol.TickOrders{Tick: 20})
	var d *DivergenceError
	if !errors.As(err, &d) || !errors.Is(err, ErrDiverged) {
		t.Fatalf("divergence not reported: %v", err)
	}
	if d.Tick != 20 || len(d.Leaves) != 1 || d.Leaves[0] != (LeafLabel{Owner: 2, Category: CategoryUnit}) {
		t.Fatalf("report %+v", d)
	}
	if len(d.Differences) != 1 || d.Differences[0].Entity != tank || d.Differences[0].Field != "health" {
		t.Fatalf("differences %v", d.Differences)
	}
	if err2 := v.ApplyTick(protocol.TickOrders{Tick: 21}); err2 != err || v.InSync() {
		t.Fatalf("verifier kept going after a divergence: %v", err2)
	}
	t.Log(err)
}
