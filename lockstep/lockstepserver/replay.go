package lockstepserver

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server/room"
)

// ReplaySuffix ends the name of every replay file a server writes.
const ReplaySuffix = ".twrp"

// Replays configures the recording of every match a server relays: one
// replay file per match in Dir, written in the background (replay.Recorder)
// as "DIR/<UTC start>-<room>-<seed>.twrp.part" and renamed without
// ".part" when the match ends. The zero value records nothing.
type Replays struct {
	// Dir is the directory of the files; "" records nothing.
	Dir string
	// Key signs the files; nil means a key of the server's own, made
	// by New (its public key is in every file's header).
	Key ed25519.PrivateKey
	// Game names the game the clients play ("rts": the reference game of
	// the bots); Setup, if set, gives the hashes of its map and rules for
	// a match of seed and players.
	Game  string
	Setup func(seed uint64, players int) (mapHash, rulesHash [32]byte)
	// SignEvery is the frames between signatures (0: 300).
	SignEvery uint16
	// Recorder bounds the background writer's queue and wait.
	Recorder replay.RecorderConfig
	// OnFinished, if set, is told of every replay the server finishes
	// (from the room's goroutine, after its match ended).
	OnFinished func(ReplayFinished)
}

// ReplayFinished is a match's replay, finished.
type ReplayFinished struct {
	Room string
	// Path is the file; Err says why it is missing or left ".part".
	Path string
	Err  error
	replay.Result
	Ticks uint64
}

// withKey gives the replays a signing key of their own if they have none.
func (c Replays) withKey() Replays {
	if c.Dir != "" && c.Key == nil {
		_, c.Key, _ = ed25519.GenerateKey(rand.Reader)
	}
	return c
}

// matchReplay records one room's match.
type matchReplay struct {
	cfg      *Replays
	room     string
	log      *slog.Logger
	keys     []ed25519.PublicKey // by seat
	file     *replay.File
	path     string
	rec      *replay.Recorder
	final    replay.SyncHash
	qos      relay.QosProfile
	tickRate int
}

func newMatchReplay(cfg *Replays, p room.Params, qos relay.QosProfile, log *slog.Logger) *matchReplay {
	if cfg.Dir == "" {
		return nil
	}
	m := &matchReplay{cfg: cfg, room: p.Name, log: log, qos: qos, tickRate: p.TickRate}
	for _, st := range p.Seats {
		var key ed25519.PublicKey
		if st.Conn != nil {
			if sec, ok := st.Conn.Security(); ok {
				key = sec.PeerKey
			}
		}
		m.keys = append(m.keys, key)
	}
	return m
}

// event records what a replay keeps of a core event: the seed starts the
// file, QoS adjustments and agreed sync hashes go into it.
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

// frame records a broadcast tick frame: exactly what the clients apply.
func (m *matchReplay) frame(f *msg.TickFrame) {
	if m != nil && m.rec != nil {
		m.rec.Frame(protocol.TickOrders{Tick: f.Tick, Orders: f.Orders})
	}
}

func (m *matchReplay) start(seed uint64) {
	if m.rec != nil {
		return
	}
	now := time.Now().UTC()
	h := replay.Header{Model: room.Lockstep, Game: m.cfg.Game, Room: m.room, StartedUnixUs: now.UnixMicro(), Seed: seed,
		TickRate: uint16(min(m.tickRate, 1<<16-1)), SignEvery: m.cfg.SignEvery,
		Qos: replay.QosProfile{DeadlineMinUs: us32(m.qos.DeadlineMin), DeadlineMaxUs: us32(m.qos.DeadlineMax),
			RunAheadMin: m.qos.RunAheadMin, RunAheadMax: m.qos.RunAheadMax}}
	if m.cfg.Setup != nil {
		h.MapHash, h.RulesHash = m.cfg.Setup(seed, len(m.keys))
	}
	for i, k := range m.keys {
		h.Players = append(h.Players, replay.Player{ID: uint16(i + 1), Key: k})
	}
	m.path = filepath.Join(m.cfg.Dir, fmt.Sprintf("%s-%s-%016x%s", now.Format("20060102T150405.000000Z"), fileSafe(m.room), seed, ReplaySuffix))
	f, err := replay.Create(m.path)
	if err != nil {
		m.log.Error("relay: replay not recorded", "err", err)
		m.finished(replay.Result{}, 0, err)
		return
	}
	rec, err := replay.NewRecorder(f, h, m.cfg.Key, m.cfg.Recorder)
	if err != nil {
		f.Abandon()
		m.log.Error("relay: replay not recorded", "err", err)
		m.finished(replay.Result{}, 0, err)
		return
	}
	m.file, m.rec = f, rec
}

// finish closes the replay of a match that ended after ticks.
func (m *matchReplay) finish(ticks uint64) {
	if m == nil || m.rec == nil {
		return
	}
	res, err := m.rec.Close(replay.Footer{Ticks: ticks, FinalTick: m.final.Tick, FinalHash: m.final.Hash})
	m.rec = nil
	if err != nil {
		m.file.Abandon()
	} else {
		err = m.file.Commit()
	}
	if err != nil {
		m.log.Error("relay: replay not finished", "path", m.path, "err", err)
	} else if res.Incomplete {
		m.log.Warn("relay: replay incomplete: the disk did not keep up", "path", m.path, "lost_frames", res.LostFrames)
	} else {
		m.log.Info("relay: replay written", "path", m.path, "bytes", res.Bytes, "ticks", ticks)
	}
	m.finished(res, ticks, err)
}

func (m *matchReplay) finished(res replay.Result, ticks uint64, err error) {
	if m.cfg.OnFinished != nil {
		m.cfg.OnFinished(ReplayFinished{Room: m.room, Path: m.path, Err: err, Result: res, Ticks: ticks})
	}
}

// profileOf is the QoS profile a room's core runs with cfg.
func profileOf(cfg relay.Config) relay.QosProfile {
	if cfg.Profile == (relay.QosProfile{}) {
		return relay.Ranked()
	}
	return cfg.Profile
}

func us32(d time.Duration) uint32 { return uint32(min(max(d/time.Microsecond, 0), 1<<32-1)) }

// fileSafe keeps a room's name to letters, digits, '-' and '_' (at most
// 64 bytes) for a file name.
func fileSafe(name string) string {
	s := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, name)
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		s = "room"
	}
	return s
}
