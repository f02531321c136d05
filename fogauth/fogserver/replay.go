package fogserver

import (
	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server/room"
)

// Replays configures the recording of every fog match: one replay file
// per match (replay.Start) holding the secret simulation seed, the
// public map seed and, for every tick, the orders the game applied, so
// the match can be re-simulated. The zero value records nothing.
type Replays struct {
	replay.Config
	// Game names the game NewGame starts ("rts": fogauth/rtsgame).
	Game string
}

// recordingGame is a fog room's game whose every Step is recorded: the
// orders that passed the room's validation, in the order applied.
type recordingGame struct {
	fogauth.Game
	rec *replay.Recording
}

func (g *recordingGame) Step(orders []protocol.TimestampedOrder, refused func(o *protocol.TimestampedOrder, reason uint8)) error {
	g.rec.Frame(protocol.TickOrders{Tick: g.Game.Tick(), Orders: orders})
	return g.Game.Step(orders, refused)
}

// record starts recording game's match, if replays are on, and returns
// the game to play (game itself when not recording).
func (r *fogRoom) record(game fogauth.Game, p room.Params, mapSeed uint64) fogauth.Game {
	if r.cfg.Replays.Dir == "" {
		return game
	}
	h := replay.Header{Model: room.FogAuthoritative, Game: r.cfg.Replays.Game, Room: p.Name, Seed: r.simSeed, MapSeed: mapSeed,
		TickRate: uint16(min(p.TickRate, 1<<16-1)), Players: replay.Players(p.PlayerKeys())}
	rec, err := replay.Start(&r.cfg.Replays.Config, h)
	if err != nil {
		r.log.Error("fogauth: replay not recorded", "err", err)
		return game
	}
	r.rec = rec
	return &recordingGame{Game: game, rec: rec}
}

// finishReplay closes the match's replay.
func (r *fogRoom) finishReplay() {
	if r.rec == nil {
		return
	}
	var ticks uint64
	if r.core != nil {
		ticks = r.core.Tick()
	}
	r.rec.Finish(replay.Footer{Ticks: ticks}).Log(r.log)
	r.rec = nil
}
