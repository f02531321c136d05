package netlayer_test

import (
	"context"
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/sim/action"
)

// TestOpenLocalRuns: the bootstrap's local choice plays through the same
// Session and driver as a remote one.
func TestOpenLocalRuns(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	net, err := netlayer.Open(ctx, netlayer.Options{Local: true,
		NewGame: func() predict.Game { return actiongame.New(action.Config{}, 3) }})
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	g := actiongame.New(action.Config{}, 0)
	c := predict.NewClient(predict.ClientConfig{}, g)
	bot := action.NewBot(1)
	intent := func(uint64) predict.Input { return actiongame.Intent(bot.Input(g.W, action.PlayerID(c.Player()))) }
	s := &predict.Session{Client: c, Net: net}
	if err := netlayer.Run(ctx, s, intent, func() bool { return c.Predicting() && c.AnchorTick() >= 30 }); err != nil {
		t.Fatal(err)
	}
	// This runs on the real clock, where a loaded machine can deliver an
	// input late: parity itself is proven in virtual time
	// (predict TestLoopbackParityLoneClient, TestParitySweep). Here the
	// local layer must run the match and check parity.
	if tel := c.Telemetry(); tel.ParityChecks == 0 || s.Errors != 0 {
		t.Fatalf("%+v, %d refused", tel, s.Errors)
	}
}

func TestOpenNeedsAServer(t *testing.T) {
	if _, err := netlayer.Open(t.Context(), netlayer.Options{}); err == nil {
		t.Fatal("opened a remote layer with nothing to dial")
	}
	if _, err := netlayer.Open(t.Context(), netlayer.Options{Local: true}); err == nil {
		t.Fatal("opened a local room without a game")
	}
}
