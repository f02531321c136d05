package predictserver

import (
	"log/slog"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server/room"
)

// hashEvery is how often a recorded prediction match records the
// server's state hash, in ticks.
const hashEvery = 30

// recordingGame is a prediction room's game whose every Step is
// recorded: each player's input of the tick (input records, in the
// InputMessage encoding of one input) and, every hashEvery ticks, the
// server's state hash.
type recordingGame struct {
	predict.Game
	rec *replay.Recording
	buf []byte
}

func (g *recordingGame) Step(inputs []predict.PlayerInput, ev []predict.GameEvent) []predict.GameEvent {
	tick := g.Game.Tick()
	for _, in := range inputs {
		m := predict.InputMessage{Player: in.Player, Inputs: []predict.Input{*in.Input}}
		if b, err := m.Append(g.buf[:0]); err == nil {
			g.buf = b
			g.rec.Input(replay.Input{Tick: tick, Player: uint16(in.Player), Data: b})
		}
	}
	ev = g.Game.Step(inputs, ev)
	if (tick+1)%hashEvery == 0 {
		g.rec.Sync(replay.SyncHash{Tick: tick, Hash: g.Game.StateHash()})
	}
	return ev
}

// record starts recording the room's match, if cfg records, and returns
// the game to play (game itself when not recording).
func record(cfg *replay.Config, p room.Params, game predict.Game) (predict.Game, *replay.Recording) {
	if cfg.Dir == "" {
		return game, nil
	}
	h := replay.Header{Model: room.Prediction, Room: p.Name, TickRate: uint16(min(p.TickRate, 1<<16-1)), Players: replay.Players(p.PlayerKeys())}
	rec, err := replay.Start(cfg, h)
	if err != nil {
		if p.Logger != nil {
			p.Logger.Error("prediction: replay not recorded", "err", err)
		}
		return game, nil
	}
	return &recordingGame{Game: game, rec: rec}, rec
}

// finishReplay closes the match's replay: the footer holds the server's
// state hash after its last tick.
func finishReplay(rec *replay.Recording, game predict.Game, log *slog.Logger) {
	if rec == nil {
		return
	}
	ticks := game.Tick()
	f := replay.Footer{Ticks: ticks}
	if ticks > 0 {
		f.FinalTick, f.FinalHash = ticks-1, game.StateHash()
	}
	fin := rec.Finish(f)
	if log != nil {
		fin.Log(log)
	}
}
