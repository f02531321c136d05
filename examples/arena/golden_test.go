package main

import (
	"fmt"
	"testing"

	"github.com/tickwire/tickwire/internal/golden"
	"github.com/tickwire/tickwire/predict"
)

// TestGolden pins the game the server runs and every client predicts
// with: four discs steer toward the hill, each wobbling, for 300 ticks;
// the state hash is recorded every 30. A client whose architecture
// computed otherwise would be corrected every tick, so CI runs it with
// GOARCH=386 too.
func TestGolden(t *testing.T) {
	const players = 4
	g := &Game{}
	for p := predict.PlayerID(1); p <= players; p++ {
		if err := g.Join(p); err != nil {
			t.Fatal(err)
		}
	}
	var lines []string
	var ev []predict.GameEvent
	for tick := uint64(1); tick <= 300; tick++ {
		var in []predict.PlayerInput
		for p := predict.PlayerID(1); p <= players; p++ {
			me, _ := g.View(predict.EntityID(p))
			wobble := float64(int(tick/15+uint64(p))%3-1) * 40
			in = append(in, predict.PlayerInput{Player: p, Input: &predict.Input{
				MoveX: stick(arenaSide/2000 - me.Pos[0] + wobble/10), MoveY: stick(arenaSide/2000 - me.Pos[1])}})
		}
		ev = g.Step(in, ev[:0])
		if tick%30 == 0 {
			lines = append(lines, fmt.Sprintf("tick %d hash %016x scores %d %d %d %d", tick, g.StateHash(), g.Score(1), g.Score(2), g.Score(3), g.Score(4)))
		}
	}
	golden.Check(t, "golden_hashes.txt", lines)
}
