package main

import (
	"fmt"
	"testing"

	"github.com/tickwire/tickwire/internal/golden"
	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/msg"
)

// TestGolden pins the game every state-sync client simulates: twenty
// painters join one frame apart and walk the bots' square for 120
// frames; the state hash the clients report is recorded every 10.
// Clients on different architectures must agree, so CI runs it with
// GOARCH=386 too.
func TestGolden(t *testing.T) {
	const players = 20
	g := NewGame()
	var h statesync.Hasher
	var lines []string
	for f := uint32(1); f <= 120; f++ {
		var in []msg.ClientInput
		for id := uint32(1); id <= players && id <= f; id++ {
			data := []byte{inputJoin}
			if id < f {
				turn := (f/10 + id) % 4
				dx, dy := [4]int8{1, 0, -1, 0}[turn], [4]int8{0, 1, 0, -1}[turn]
				data = []byte{inputMove, byte(dx), byte(dy)}
			}
			in = append(in, msg.ClientInput{Client: id, Data: data})
		}
		g.Step(f, in)
		if f%10 == 0 {
			hash, n := h.StateHash(g)
			all, _ := g.Painted(1)
			lines = append(lines, fmt.Sprintf("frame %d hash %08x entities %d painted %d", f, hash, n, all))
		}
	}
	golden.Check(t, "golden_hashes.txt", lines)
}
