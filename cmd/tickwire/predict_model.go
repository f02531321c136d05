package main

import (
	"hash/fnv"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/predict/predictserver"
	"github.com/tickwire/tickwire/relay/server/room"
	"github.com/tickwire/tickwire/sim/action"
)

// predictionGame is the game of prediction rooms and clients: the
// reference action game at the room's tick rate, so server and clients
// share its rules.
func predictionGame(tickRate int, seed uint64) predict.Game {
	return actiongame.New(action.Config{TickRate: tickRate}, seed)
}

// predictionModel is the prediction network model the server hosts, its
// rooms at tickRate (0: the server's).
func predictionModel(tickRate int) room.Model {
	var cfg predictserver.Config
	cfg.Server.TickRate = tickRate
	cfg.NewGame = func(name string, tickRate int) predict.Game {
		h := fnv.New64a()
		h.Write([]byte(name))
		return predictionGame(tickRate, h.Sum64())
	}
	return predictserver.Model(cfg)
}
