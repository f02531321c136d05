package relaybench

import (
	"testing"

	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/protocol"
)

func TestGameStaysHealthy(t *testing.T) {
	g, err := NewGame()
	if err != nil {
		t.Fatal(err)
	}
	for range 3000 {
		if err := g.Tick(); err != nil {
			t.Fatal(err)
		}
	}
	for id := 1; id <= Players; id++ {
		st, _ := g.Core().Player(protocol.PlayerID(id))
		if st.Status != relay.StatusActive || st.LateSubmissions != 0 || st.Strikes != 0 || st.Suspicious != 0 || st.IdleTicks != 0 {
			t.Errorf("player %d: %+v", id, st)
		}
	}
}

func TestSteadyStateDoesNotAllocate(t *testing.T) {
	g, err := NewGame()
	if err != nil {
		t.Fatal(err)
	}
	// 120 ticks: four QoS windows and a sync check.
	allocs := testing.AllocsPerRun(120, func() {
		if err := g.Tick(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per game tick, want 0", allocs)
	}
}

func TestRun(t *testing.T) {
	ns, err := Run(100)
	if err != nil || ns <= 0 {
		t.Fatalf("Run = %v, %v", ns, err)
	}
}

// BenchmarkCoreTick is the cost of one game tick of a 4-player match with
// the full default filter chain. Its body lives here, in a test file, so
// that the binary, which links this package, does not link package
// testing.
func BenchmarkCoreTick(b *testing.B) {
	g, err := NewGame()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := g.Tick(); err != nil {
			b.Fatal(err)
		}
	}
}
