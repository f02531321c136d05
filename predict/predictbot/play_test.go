package predictbot_test

import (
	"context"
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/predict/predictbot"
)

// TestLoneBotOnTheLoopback: one bot against the room in this process
// (the same game, predictbot.Game),
// through the loopback layer, predicts 60 ticks past its first with parity (a lone
// client without loss is never corrected) and reports them.
func TestLoneBotOnTheLoopback(t *testing.T) {
	const tps = 60
	open := func(ctx context.Context, _ int) (predict.Network, error) {
		return netlayer.Open(ctx, netlayer.Options{Local: true, Server: predict.ServerConfig{TickRate: tps},
			NewGame: func() predict.Game { return predictbot.Game(tps, 0, 1) }})
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	r := predictbot.Play(ctx, 1, 60, 0, true, open)
	if !r.ParityOK || len(r.Players) != 1 || r.NetworkModel != "prediction" {
		t.Fatalf("report %+v", r)
	}
	if p := r.Players[0]; p.Error != "" || p.Ticks == 0 || p.Corrections != 0 || p.ParityChecks == 0 {
		t.Fatalf("bot %+v", p)
	}
}
