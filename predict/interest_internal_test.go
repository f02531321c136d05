package predict

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestInterestAgainstBruteForce: over random worlds and moves, the
// interest set is exactly what its rule says, checked entity by entity:
// own entities always; no other entity beyond Radius+Hysteresis unless
// on a line of fire; one between Radius and Radius+Hysteresis only if it
// was in the previous set (hysteresis: no flicker at the edge); every
// entity within Radius or on a line of fire unless the budget is full,
// and then the ones kept are the nearest.
func TestInterestAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cfg := InterestConfig{Radius: 10, Budget: 12}.withDefaults(60)
	var prev []EntityID
	views := make([]EntityView, 0, 80)
	for round := range 500 {
		views = views[:0]
		for id := EntityID(1); id <= 60; id++ {
			v := EntityView{ID: id, Owner: PlayerID(1 + rng.IntN(20)), Pos: [3]float64{rng.Float64() * 60, rng.Float64() * 60}}
			if rng.IntN(3) == 0 {
				v.Vel = [3]float64{rng.Float64() - 0.5, rng.Float64() - 0.5}
			}
			views = append(views, v)
		}
		const p, self = PlayerID(1), EntityID(7)
		views[self-1].Owner = p
		got, _ := cfg.interest(p, self, views, prev, nil, nil)
		me := views[self-1].Pos
		others := 0
		for _, v := range views {
			in := slices.Contains(got, v.ID)
			d := dist(v.Pos, me)
			aimed := cfg.aimedAt(v, me)
			had := slices.Contains(prev, v.ID)
			switch {
			case v.Owner == p && !in:
				t.Fatalf("round %d: own entity %d left out", round, v.ID)
			case v.Owner == p:
				continue
			case in && d > cfg.Radius+cfg.Hysteresis && !aimed:
				t.Fatalf("round %d: entity %d at %.1f sent", round, v.ID, d)
			case in && d > cfg.Radius && !had && !aimed:
				t.Fatalf("round %d: entity %d entered at %.1f, inside the hysteresis band", round, v.ID, d)
			}
			if in {
				others++
			}
		}
		if others > cfg.Budget {
			t.Fatalf("round %d: %d other entities, budget %d", round, others, cfg.Budget)
		}
		if others < cfg.Budget {
			for _, v := range views {
				if v.Owner != p && (dist(v.Pos, me) <= cfg.Radius || cfg.aimedAt(v, me)) && !slices.Contains(got, v.ID) {
					t.Fatalf("round %d: entity %d in range left out with the budget not full", round, v.ID)
				}
			}
		}
		if !slices.IsSorted(got) {
			t.Fatal("interest set not ascending")
		}
		prev = got
	}
}

// TestInterestHysteresis: an entity wandering back and forth across the
// radius enters once and leaves once, not every time it crosses.
func TestInterestHysteresis(t *testing.T) {
	cfg := InterestConfig{Radius: 10}.withDefaults(60)
	var prev []EntityID
	changes := 0
	for step := range 200 {
		x := []float64{7, 9, 11, 12}[step%4] // across the radius (10), inside the band (12.5)
		views := []EntityView{{ID: 1, Owner: 1}, {ID: 2, Owner: 2, Pos: [3]float64{x, 0}}}
		got, _ := cfg.interest(1, 1, views, prev, nil, nil)
		if slices.Contains(got, 2) != slices.Contains(prev, 2) {
			changes++
		}
		prev = got
	}
	if changes != 1 {
		t.Fatalf("the entity changed interest %d times, want 1 (it entered and stayed)", changes)
	}
}
