package actiongame_test

import (
	"fmt"
	"testing"

	"github.com/tickwire/tickwire/internal/golden"
	"github.com/tickwire/tickwire/sim/action"
	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/actiongame"
	"github.com/tickwire/tickwire/statesync/msg"
)

// TestGolden pins the state-sync action game as every client simulates
// it: eight bots join one frame apart and play 600 frames; the state
// hash the clients report is recorded every 50 frames. Clients on
// different architectures must agree, so CI runs it with GOARCH=386
// too.
func TestGolden(t *testing.T) {
	const players = 8
	e := actiongame.New(cfg, 7)
	bots := make([]*action.Bot, players+1)
	for id := 1; id <= players; id++ {
		bots[id] = action.NewBot(uint64(id))
	}
	var h statesync.Hasher
	var lines []string
	for frame := uint32(1); frame <= 600; frame++ {
		var in []msg.ClientInput
		for id := uint32(1); id <= players && id <= frame; id++ {
			data := actiongame.JoinInput()
			if id < frame {
				data = actiongame.EncodeInput(nil, bots[id].Input(e.World(), action.PlayerID(id)))
			}
			in = append(in, msg.ClientInput{Client: id, Data: data})
		}
		e.Step(frame, in)
		if frame%50 == 0 {
			hash, n := h.StateHash(e)
			lines = append(lines, fmt.Sprintf("frame %d hash %08x entities %d", frame, hash, n))
		}
	}
	golden.Check(t, "golden_hashes.txt", lines)
}
