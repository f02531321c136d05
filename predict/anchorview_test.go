package predict_test

import (
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/sim/action"
)

// TestAnchorViewIsTheServers: what AnchorView returns (a page's ghosts)
// is exactly the server's world at the anchor tick, checked at every
// step of a lone client's second of play.
func TestAnchorViewIsTheServers(t *testing.T) {
	sg := actiongame.New(action.Config{}, seed)
	local := predict.NewLocalServer(predict.ServerConfig{}, sg)
	net, _ := local.Connect(0, 1)
	c := predict.NewClient(predict.ClientConfig{}, actiongame.New(action.Config{}, 0))
	intent := botIntent(c, 5)
	server := map[uint64][]predict.EntityView{}
	checked := 0
	for now := time.Duration(0); now < time.Second; now += 4 * time.Millisecond {
		server[sg.Tick()] = sg.Entities(nil)
		net.Poll(now, func(m []byte) { c.Receive(now, m) })
		c.Update(now, intent)
		for _, m := range c.Ready() {
			net.Send(now, m.Lane, m.Data)
		}
		c.Advance()
		server[sg.Tick()] = sg.Entities(nil)
		if !c.Predicting() {
			continue
		}
		want, ok := server[c.AnchorTick()]
		if !ok {
			t.Fatalf("anchor tick %d never seen on the server", c.AnchorTick())
		}
		if got := c.AnchorView(nil); !slices.Equal(got, want) {
			t.Fatalf("at %v, anchor tick %d: AnchorView %v, server %v", now, c.AnchorTick(), got, want)
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("checked %d steps, want a second of predicting", checked)
	}
}
