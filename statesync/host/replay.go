package host

import (
	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server/room"
)

// startReplay starts recording the room's match, if cfg records: state sync
// replays hold the majority hash of every frame judged (sync records),
// the frames' agreed hashes; the clients' inputs are theirs.
func (r *ssRoom) startReplay(cfg *replay.Config, p room.Params, hz int) {
	if cfg.Dir == "" {
		return
	}
	h := replay.Header{Model: room.StateSync, Room: p.Name, TickRate: uint16(min(hz, 1<<16-1)), Players: replay.Players(p.PlayerKeys())}
	rec, err := replay.Start(cfg, h)
	if err != nil {
		if p.Logger != nil {
			p.Logger.Error("statesync: replay not recorded", "err", err)
		}
		return
	}
	r.rec, r.log = rec, p.Logger
}

// recordVerdict records a frame's majority hash.
func (r *ssRoom) recordVerdict(frame, hash uint32) {
	if r.rec != nil {
		r.rec.Sync(replay.SyncHash{Tick: uint64(frame), Hash: uint64(hash)})
	}
}

// finishReplay closes the match's replay.
func (r *ssRoom) finishReplay() {
	if r.rec == nil {
		return
	}
	fin := r.rec.Finish(replay.Footer{Ticks: uint64(r.core.Frame()), FinalTick: uint64(r.report.LastVerdict), FinalHash: uint64(r.report.LastVerdictHash)})
	if r.log != nil {
		fin.Log(r.log)
	}
	r.rec = nil
}
