package predictserver_test

import (
	"testing"
	"testing/synctest"

	"github.com/tickwire/tickwire/internal/roomtest"
	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/predict/predictserver"
	"github.com/tickwire/tickwire/sim/action"
)

// TestSlowClientDropped: the room driver's backpressure policy in a
// prediction room. One of three clients stops reading after its join:
// the server drops it once it has taken nothing for room.SendGrace,
// counts it and logs it once, and the client, reading again, finds the
// policy's reason; the other two keep receiving snapshots throughout.
func TestSlowClientDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		roomtest.SlowClient(t, predictserver.Model(predictserver.Config{NewGame: func(string, int) predict.Game { return actiongame.New(action.Config{}, 1) }}))
	})
}

// TestLossyClientsKept: the policy's other side — clients that read,
// over links losing 10% each way, are never dropped as too slow.
func TestLossyClientsKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		roomtest.LossyClients(t, predictserver.Model(predictserver.Config{NewGame: func(string, int) predict.Game { return actiongame.New(action.Config{}, 1) }}))
	})
}
