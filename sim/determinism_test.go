package sim_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/sim/scenario"
)

var update = flag.Bool("update", false, "rewrite testdata/golden_hashes.txt from the current simulation")

// newMatch returns a generated match with its bots.
func newMatch(t testing.TB, p scenario.Params, seed uint64) (sim.MapData, sim.Config, bot.Team) {
	t.Helper()
	md, cfg, err := scenario.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	return md, cfg, bot.NewTeam(md.Players, seed)
}

// TestDualSimTenThousandTicks runs 10,000 ticks of bot orders through the
// dual-simulation verifier, round-tripping the shadow through a snapshot
// every 500 ticks.
func TestDualSimTenThousandTicks(t *testing.T) {
	md, cfg, team := newMatch(t, scenario.Params{Players: 4, UnitsPerPlayer: 24, MapSize: 48, Seed: 5}, 5)
	v, err := sim.NewDualSimVerifier(md, cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	v.RoundTripEvery = 500
	var orders []protocol.TimestampedOrder
	issued, destroyed := 0, 0
	for range 10_000 {
		s := v.Primary()
		orders = team.Orders(s, orders[:0])
		issued += len(orders)
		before := len(s.Entities())
		if err := v.ApplyTick(protocol.TickOrders{Tick: s.Tick(), Orders: orders}); err != nil {
			t.Fatal(err)
		}
		destroyed += max(before-len(s.Entities()), 0)
	}
	if !v.InSync() || v.Primary().Tick() != 10_000 {
		t.Fatalf("in sync %v at tick %d", v.InSync(), v.Primary().Tick())
	}
	// A test that can fail: the game must actually have been played.
	if issued < 1000 || destroyed < 50 {
		t.Fatalf("%d orders issued, %d entities destroyed: the match was not played", issued, destroyed)
	}
}

// golden is the fixed match of the golden test.
var goldenTicks = []uint64{100, 1_000, 5_000}

func goldenHashes(t *testing.T) []string {
	md, cfg, team := newMatch(t, scenario.Params{Players: 4, UnitsPerPlayer: 40, MapSize: 56, Seed: 2024}, 99)
	s, err := sim.New(md, cfg, 77)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, at := range goldenTicks {
		if err := team.Play(s, int(at-s.Tick())); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("tick %d hash %016x rng %016x entities %d", s.Tick(), s.StateHash(), s.RNGState(), len(s.Entities())))
	}
	return lines
}

// TestGolden pins the simulation's results: any change to the rules, the
// tick systems, the scenario generator or the bots changes these hashes.
// Regenerate on purpose with: go test ./sim -run TestGolden -update
// It must also pass with GOARCH=386.
func TestGolden(t *testing.T) {
	path := filepath.Join("testdata", "golden_hashes.txt")
	got := goldenHashes(t)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (create it with -update)", err)
	}
	defer f.Close()
	var want []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			want = append(want, line)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("simulation results changed:\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSnapshotRestoreContinue checks that a match restored from a snapshot
// goes on exactly as the original does.
func TestSnapshotRestoreContinue(t *testing.T) {
	md, cfg, team := newMatch(t, scenario.Params{Players: 3, UnitsPerPlayer: 30, Seed: 8}, 8)
	a, err := sim.New(md, cfg, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := team.Play(a, 300); err != nil {
		t.Fatal(err)
	}
	snap := a.Snapshot()
	b, err := sim.New(md, cfg, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if string(b.Snapshot()) != string(snap) {
		t.Fatal("snapshot of a restored simulation differs from the original snapshot")
	}
	var orders []protocol.TimestampedOrder
	for range 700 {
		orders = team.Orders(a, orders[:0])
		tick := protocol.TickOrders{Tick: a.Tick(), Orders: orders}
		if err := a.ApplyTick(tick); err != nil {
			t.Fatal(err)
		}
		if err := b.ApplyTick(tick); err != nil {
			t.Fatal(err)
		}
		if a.StateHash() != b.StateHash() {
			d, _ := sim.Diff(a.Snapshot(), b.Snapshot())
			t.Fatalf("tick %d: restored simulation diverged: %v", a.Tick(), d)
		}
	}
}

func TestRestoreRejectsOtherMatch(t *testing.T) {
	md, cfg, _ := newMatch(t, scenario.Params{Players: 2, Seed: 1}, 1)
	other, _, _ := newMatch(t, scenario.Params{Players: 2, Seed: 2}, 1)
	a, _ := sim.New(md, cfg, 1)
	b, _ := sim.New(other, cfg, 1)
	if err := b.Restore(a.Snapshot()); err == nil {
		t.Fatal("restored a snapshot of another map")
	}
	c, _ := sim.New(md, sim.Config{MaxUnitsPerPlayer: 7}, 1)
	if err := c.Restore(a.Snapshot()); err == nil {
		t.Fatal("restored a snapshot taken under other rules")
	}
}

// TestValidateOrderPurity validates every order the bots issue over a
// match, plus the same orders attributed to every other player, and checks
// the state hash never moves.
func TestValidateOrderPurity(t *testing.T) {
	md, cfg, team := newMatch(t, scenario.Params{Players: 3, UnitsPerPlayer: 20, Seed: 3}, 3)
	s, err := sim.New(md, cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	var orders []protocol.TimestampedOrder
	checked := 0
	for range 600 {
		orders = team.Orders(s, orders[:0])
		before := s.StateHash()
		for _, o := range orders {
			for p := range 5 {
				s.ValidateOrder(protocol.PlayerID(p), o.Order)
				checked++
			}
		}
		if s.StateHash() != before {
			t.Fatalf("tick %d: ValidateOrder changed the state", s.Tick())
		}
		if err := s.ApplyTick(protocol.TickOrders{Tick: s.Tick(), Orders: orders}); err != nil {
			t.Fatal(err)
		}
	}
	if checked == 0 {
		t.Fatal("no orders validated")
	}
}
