package predict_test

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/sim/action"
)

const seed = 11

// botIntent returns an IntentFunc playing player p with a random-input
// bot from the client's predicted world.
func botIntent(c *predict.Client, s uint64) predict.IntentFunc {
	bot := action.NewBot(s)
	return func(uint64) predict.Input {
		g := c.Game().(*actiongame.Game)
		return actiongame.Intent(bot.Input(g.W, action.PlayerID(c.Player())))
	}
}

// TestLoopbackParityLoneClient is the seed's harness: random inputs
// through the loopback layer; after every snapshot and replay the
// prediction of the client's own entity at the acknowledged tick equals
// the authoritative state bit for bit, and a lone client without loss is
// never corrected.
func TestLoopbackParityLoneClient(t *testing.T) {
	local := predict.NewLocalServer(predict.ServerConfig{}, actiongame.New(action.Config{}, seed))
	net, err := local.Connect(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := predict.NewClient(predict.ClientConfig{}, actiongame.New(action.Config{}, 0))
	s := &predict.Session{Client: c, Net: net}
	intent := botIntent(c, 5)
	for now := time.Duration(0); now < 60*time.Second; now += 4 * time.Millisecond {
		if err := s.Step(now, intent); err != nil {
			t.Fatal(err)
		}
	}
	tel := c.Telemetry()
	if s.Errors != 0 {
		t.Fatalf("%d messages refused", s.Errors)
	}
	if tel.ParityChecks < 3000 || tel.ParityFails != 0 {
		t.Fatalf("parity: %d checks, %d failures", tel.ParityChecks, tel.ParityFails)
	}
	if tel.Corrections != 0 {
		t.Fatalf("a lone client without loss was corrected %d times", tel.Corrections)
	}
	if tel.ProvisionalSpawns < 20 || tel.ProvisionalMapped+tel.ProvisionalDiscarded+uint64(c.ProvisionalPending()) != tel.ProvisionalSpawns {
		t.Fatalf("provisional spawns %d mapped %d discarded %d", tel.ProvisionalSpawns, tel.ProvisionalMapped, tel.ProvisionalDiscarded)
	}
}
