package fogserver_test

import (
	"testing"
	"testing/synctest"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/fogserver"
	"github.com/tickwire/tickwire/fogauth/rtsgame"
	"github.com/tickwire/tickwire/internal/roomtest"
)

// TestSlowClientDropped: the room driver's backpressure policy in a
// fog-authoritative room. One of three clients stops reading after its
// join: the server drops it once it has taken nothing for
// room.SendGrace (before, the room logged a warning for every refused
// send and kept computing its view), counts it and logs it once, and the
// client, reading again, finds the policy's reason; the other two keep
// receiving state throughout.
func TestSlowClientDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		roomtest.SlowClient(t, fogserver.Model(fogserver.Config{NewGame: rtsGame, UnitsPerPlayer: 10, Seed: func() uint64 { return 3 }}))
	})
}

// TestLossyClientsKept: the policy's other side — clients that read,
// over links losing 10% each way, are never dropped as too slow.
func TestLossyClientsKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		roomtest.LossyClients(t, fogserver.Model(fogserver.Config{NewGame: rtsGame, UnitsPerPlayer: 10, Seed: func() uint64 { return 3 }}))
	})
}

// rtsGame is the reference RTS as the rooms' game.
func rtsGame(players, units int, mapSeed, simSeed uint64) (fogauth.Game, int, error) {
	return rtsgame.Start(players, units, mapSeed, simSeed)
}
