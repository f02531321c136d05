package host_test

import (
	"testing"

	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/statesync/host"
	"github.com/tickwire/tickwire/statesync/msg"
	"github.com/tickwire/tickwire/transport"
)

// The room itself runs end to end over UDP in cmd/tickwire
// (TestStateSyncDemoEndToEnd); these check what the server seam relies on.

func TestModel(t *testing.T) {
	m := host.Model(host.Config{})
	if m.Name != room.StateSync || m.MaxRoomSize != 255 || m.TickRate != 20 || m.New == nil || m.Metrics == nil {
		t.Fatalf("model %+v", m)
	}
	server := map[transport.ChannelID]transport.ChannelConfig{}
	for _, c := range lanes.Channels() {
		server[c.ID] = c
	}
	for _, c := range m.Channels {
		if server[c.ID] != c {
			t.Fatalf("channel %d is not the server's lane verbatim", c.ID)
		}
	}
	if got := len(m.Metrics()); got != 5 {
		t.Fatalf("%d metrics", got)
	}
}

func TestLane(t *testing.T) {
	for _, c := range []struct {
		m    msg.Message
		size int
		want transport.ChannelID
	}{
		{&msg.StateHash{}, 9, lanes.Control},
		{&msg.PartitionData{}, 500, lanes.Control},
		{&msg.PartitionData{}, 5000, lanes.Orders}, // chunked: needs order
		{&msg.Input{}, 20, lanes.Orders},
		{&msg.EntityData{}, 100, lanes.Orders},
	} {
		if got := host.Lane(c.m, c.size); got != c.want {
			t.Errorf("%T of %d bytes on lane %d, want %d", c.m, c.size, got, c.want)
		}
	}
}
