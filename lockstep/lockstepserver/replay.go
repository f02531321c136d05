package lockstepserver

import (
	"crypto/ed25519"
	"log/slog"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server/room"
)

// Replays configures the recording of every match a server relays: one
// replay file per match in Dir (replay.Start), written in the background
// and renamed without ".part" when the match ends. The zero value records
// nothing; a nil Key means a key of the server's own, made by New (its
// public key is in every file's header).
type Replays struct {
	replay.Config
	// Game names the game the clients play ("rts": the reference game of
	// the bots); Setup, if set, gives the hashes of its map and rules for
	// a match of seed and players.
	Game  string
	Setup func(seed uint64, players int) (mapHash, rulesHash [32]byte)
}

// matchReplay records one room's match: it starts when the seed is
// agreed, takes every broadcast frame (exactly what the clients apply),
// the QoS adjustments and the agreed sync hashes.
type matchReplay struct {
	cfg      *Replays
	room     string
	log      *slog.Logger
	keys     []ed25519.PublicKey // by seat
	rec      *replay.Recording
	final    replay.SyncHash
	qos      relay.QosProfile
	tickRate int
}

func newMatchReplay(cfg *Replays, p room.Params, qos relay.QosProfile, log *slog.Logger) *matchReplay {
	if cfg.Dir == "" {
		return nil
	}
	return &matchReplay{cfg: cfg, room: p.Name, log: log, qos: qos, tickRate: p.TickRate, keys: p.PlayerKeys()}
}

// event records what a replay keeps of a core event.
func (m *matchReplay) event(ev relay.Event) {
	if m == nil {
		return
	}
	switch e := ev.(type) {
	case relay.SeedAgreed:
		m.start(e.Seed)
	case relay.QosAdjustmentEvent:
		if m.rec != nil {
			m.rec.Qos(replay.QosEvent{Tick: e.Tick, OldDeadlineUs: us32(e.OldDeadline), NewDeadlineUs: us32(e.NewDeadline),
				OldRunAhead: e.OldRunAhead, NewRunAhead: e.NewRunAhead, LateRateBps: e.LateRateBpsEWMA, Reason: uint8(e.Reason)})
		}
	case relay.SyncAgreed:
		if m.rec != nil {
			m.final = replay.SyncHash{Tick: e.Tick, Hash: e.Hash}
			m.rec.Sync(m.final)
		}
	}
}

// frame records a broadcast tick frame.
func (m *matchReplay) frame(f *msg.TickFrame) {
	if m != nil && m.rec != nil {
		m.rec.Frame(protocol.TickOrders{Tick: f.Tick, Orders: f.Orders})
	}
}

func (m *matchReplay) start(seed uint64) {
	if m.rec != nil {
		return
	}
	h := replay.Header{Model: room.Lockstep, Game: m.cfg.Game, Room: m.room, Seed: seed, TickRate: uint16(min(m.tickRate, 1<<16-1)),
		Qos: replay.QosProfile{DeadlineMinUs: us32(m.qos.DeadlineMin), DeadlineMaxUs: us32(m.qos.DeadlineMax),
			RunAheadMin: m.qos.RunAheadMin, RunAheadMax: m.qos.RunAheadMax}}
	if m.cfg.Setup != nil {
		h.MapHash, h.RulesHash = m.cfg.Setup(seed, len(m.keys))
	}
	h.Players = replay.Players(m.keys)
	rec, err := replay.Start(&m.cfg.Config, h)
	if err != nil {
		m.log.Error("relay: replay not recorded", "err", err)
		return
	}
	m.rec = rec
}

// finish closes the replay of a match that ended after ticks.
func (m *matchReplay) finish(ticks uint64) {
	if m == nil || m.rec == nil {
		return
	}
	m.rec.Finish(replay.Footer{Ticks: ticks, FinalTick: m.final.Tick, FinalHash: m.final.Hash}).Log(m.log)
	m.rec = nil
}

// profileOf is the QoS profile a room's core runs with cfg.
func profileOf(cfg relay.Config) relay.QosProfile {
	if cfg.Profile == (relay.QosProfile{}) {
		return relay.Ranked()
	}
	return cfg.Profile
}

func us32(d time.Duration) uint32 { return uint32(min(max(d/time.Microsecond, 0), 1<<32-1)) }
