package lanes_test

import (
	"testing"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// TestLanes: a server configures its three lanes and nothing else, the
// orders lane takes the largest frame, and every message has its lane.
func TestLanes(t *testing.T) {
	if got, want := lanes.MaxMessageSize(), (msg.Codec{}).MaxTickFrameSize(relay.MaxPlayers); got != want {
		t.Errorf("MaxMessageSize() = %d, lockstep/msg's bound is %d", got, want)
	}
	if got := lanes.MaxMessageSize(); got != 7_881_627 {
		t.Errorf("MaxMessageSize() = %d, want 7,881,627 (64 players × 256 orders, one 476-byte packet each)", got)
	}
	cfg := lanes.TransportConfig()
	if len(cfg.Channels) != 3 {
		t.Fatalf("%d channels, want the orders, control and state lanes only", len(cfg.Channels))
	}
	for _, c := range cfg.Channels {
		switch c.ID {
		case lanes.Orders:
			if c.Reliability != transport.ReliableOrdered || !c.AllowFragmentation || c.MaxMessageSize != lanes.MaxMessageSize() {
				t.Errorf("orders lane %+v", c)
			}
		case lanes.Control:
			if c.Reliability != transport.UnreliableSequenced || c.AllowFragmentation || c.Compression != transport.CompressNever {
				t.Errorf("control lane %+v", c)
			}
		case lanes.State:
			if c.Reliability != transport.Unreliable || !c.AllowFragmentation || c.MaxMessageSize != lanes.MaxStateMessageSize {
				t.Errorf("state lane %+v", c)
			}
		default:
			t.Errorf("unexpected channel %+v", c)
		}
	}
	control := map[msg.Message]bool{&msg.CalibrationPing{}: true, &msg.CalibrationPong{}: true, &msg.ClientMetrics{}: true,
		&msg.TickFrame{}: false, &msg.OrderSubmit{}: false, &msg.PlayerRemoved{}: false, &msg.SeedResult{}: false}
	for m, isControl := range control {
		if want := map[bool]transport.ChannelID{true: lanes.Control, false: lanes.Orders}[isControl]; lanes.Of(msg.IsSample(m)) != want {
			t.Errorf("%T on lane %d, want %d", m, lanes.Of(msg.IsSample(m)), want)
		}
	}
}
