package host_test

import (
	"testing"
	"testing/synctest"

	"github.com/tickwire/tickwire/internal/roomtest"
	"github.com/tickwire/tickwire/statesync/host"
)

// TestSlowClientDropped: the room driver's backpressure policy in a
// state-sync room. One of three clients stops reading after its join:
// the server drops it once it has taken nothing for room.SendGrace
// (before, the room queued a mebibyte for it first), counts it and logs
// it once, and the client, reading again, finds the policy's reason; the
// other two keep receiving frames throughout.
func TestSlowClientDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		roomtest.SlowClient(t, host.Model(host.Config{}))
	})
}

// TestLossyClientsKept: the policy's other side — clients that read,
// over links losing 10% each way, are never dropped as too slow.
func TestLossyClientsKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		roomtest.LossyClients(t, host.Model(host.Config{}))
	})
}
