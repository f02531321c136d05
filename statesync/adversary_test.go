package statesync_test

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/hostile"
	"github.com/tickwire/tickwire/statesync/msg"
)

// liar returns the hostile player's lies, or nil for an honest one.
func (r *room) liar(p *player) *hostile.Liar {
	t := r.hostile[p.id]
	if t == 0 {
		return nil
	}
	return &hostile.Liar{Tactics: t, Engine: p.e, Client: p.c}
}

// inject sends what a hostile player sends on its own when a Tick
// arrives, a little faster than any honest client can answer.
func (r *room) inject(l *hostile.Liar, id uint32, tick *msg.Tick) {
	for _, m := range l.OnTick(tick) {
		r.lies[id]++
		b, err := msg.Append(nil, m)
		if err != nil {
			r.t.Fatalf("encode %T: %v", m, err)
		}
		r.upBytes[id] += len(b)
		r.push(delivery{at: r.now + r.latency/2 + r.injectDelay, from: id, b: b})
	}
}

// attackLedger follows a hostile run frame by frame: the invariants the
// issue lists, checked as the room runs.
type attackLedger struct {
	r        *room
	honest   []uint32
	scores   map[uint32]uint16
	seen     int // server events already looked at
	tiers    statesync.TierCounts
	offender map[uint32]bool
	removed  map[uint32]bool
	retained int // peak
	repaired int // honest recoveries completed
	// repairFrames and repairBytes: the most frames and bytes an honest
	// repair took.
	repairFrames uint32
	repairBytes  int
}

func newLedger(r *room, honest []uint32) *attackLedger {
	l := &attackLedger{r: r, honest: honest, scores: map[uint32]uint16{}, offender: map[uint32]bool{}, removed: map[uint32]bool{},
		seen: len(r.serverEvents)}
	for _, id := range honest {
		l.scores[id] = r.srv.Score(id)
	}
	return l
}

// frame runs one frame and checks: honest scores never fall; no honest
// client is named an offender; every correction or full state an honest
// client applied gave it the honest majority's state; tiers; memory.
func (l *attackLedger) frame() []string {
	r := l.r
	r.frames(1)
	var bad []string
	for id, was := range l.scores {
		if s := r.srv.Score(id); s < was {
			bad = append(bad, fmt.Sprintf("honest client %d's score fell from %d to %d", id, was, s))
		} else {
			l.scores[id] = s
		}
	}
	for _, e := range r.serverEvents[l.seen:] {
		switch e.Kind {
		case statesync.EventOffence:
			l.offender[e.Client] = true
		case statesync.EventRemoved:
			l.removed[e.Client] = true
		case statesync.EventTier:
			l.tiers.Add(e.Tier)
		}
		if e.Kind == statesync.EventRecovered && slices.Contains(l.honest, e.Client) {
			l.repaired++
			l.repairFrames = max(l.repairFrames, e.Frames)
			l.repairBytes = max(l.repairBytes, e.Bytes)
		}
		if (e.Kind == statesync.EventOffence || e.Kind == statesync.EventRemoved) && slices.Contains(l.honest, e.Client) {
			bad = append(bad, fmt.Sprintf("honest client %d charged with %v", e.Client, e.Offence))
		}
	}
	l.seen = len(r.serverEvents)
	for _, id := range l.honest {
		for _, e := range r.clientEvents[id] {
			if e.Kind != statesync.ClientCorrected && e.Kind != statesync.ClientSynced {
				continue
			}
			if want, ok := l.honestHash(e.Frame); ok {
				if got, _ := r.clients[id].c.HashAt(e.Frame); got != want {
					bad = append(bad, fmt.Sprintf("honest client %d set to a state of frame %d the honest majority does not have", id, e.Frame))
				}
			}
		}
		r.clientEvents[id] = r.clientEvents[id][:0]
	}
	l.retained = max(l.retained, r.srv.RetainedBytes())
	return bad
}

// honestHash is the hash most honest clients had after frame f.
func (l *attackLedger) honestHash(f uint32) (uint32, bool) {
	count := map[uint32]int{}
	for _, id := range l.honest {
		if h, ok := l.r.clients[id].c.HashAt(f); ok {
			count[h]++
		}
	}
	for h, n := range count {
		if n*2 > len(l.honest) {
			return h, true
		}
	}
	return 0, false
}

// identified reports whether the server named a client in its metrics:
// an offence, or removal.
func (l *attackLedger) identified(id uint32) bool { return l.offender[id] || l.removed[id] }

// serverWork is the server's work in deterministic quantities: partition
// bytes accepted for checking and decompressed, messages it sent, and
// partition requests it made.
func serverWork(st statesync.Stats) uint64 {
	return st.PartitionBytesIn + st.PartitionBytesDecoded + st.PartitionRequests*64
}

// attackRun plays honest clients plus hostile ones with the given tactics
// for frames frames, after a warm-up, and returns the ledger and the
// server's stats over the measured frames.
func attackRun(tb testing.TB, seed uint64, honest, nHostile int, t hostile.Tactic, frames, corruptEvery int) (*attackLedger, statesync.Stats, time.Duration, []string) {
	r := newRoom(tb, seed, statesync.Config{Seed: seed}, 300)
	r.jitter = 0 // a constant delay: an honest score falls only by blame
	var honestIDs, hostileIDs []uint32
	for id := uint32(1); id <= uint32(honest+nHostile); id++ {
		r.join(id)
		if id%20 == 0 {
			r.frames(1)
		}
		// Hostile clients are spread over the ids.
		if nHostile > 0 && int(id)%((honest+nHostile)/nHostile) == 0 && len(hostileIDs) < nHostile {
			hostileIDs = append(hostileIDs, id)
		} else {
			honestIDs = append(honestIDs, id)
		}
	}
	r.frames(60)
	for _, id := range hostileIDs {
		r.hostile[id] = t
	}
	before, cpu0 := r.srv.Stats(), r.tickCPU
	l := newLedger(r, honestIDs)
	var bad []string
	for f := range frames {
		if f%corruptEvery == corruptEvery/2 {
			// An honest client desyncs (a bug, a cosmic ray): its repair
			// may be sourced from a hostile client. Its own score may
			// fall while it disagrees.
			victim := honestIDs[(f/corruptEvery*7)%len(honestIDs)]
			p := r.clients[victim]
			if p.e.corrupt(ids(p.e)[1]) {
				delete(l.scores, victim)
			}
		}
		bad = append(bad, l.frame()...)
	}
	after := r.srv.Stats()
	after.PartitionBytesIn -= before.PartitionBytesIn
	after.PartitionBytesDecoded -= before.PartitionBytesDecoded
	after.PartitionRequests -= before.PartitionRequests
	for _, id := range hostileIDs {
		if r.lies[id] > 0 && !l.identified(id) {
			bad = append(bad, fmt.Sprintf("hostile client %d lied %d times and was never identified", id, r.lies[id]))
		}
	}
	return l, after, r.tickCPU - cpu0, bad
}

// calmRuns memoises attack-free runs by size, for the tests that compare
// with one.
var calmRuns = map[[2]int]statesync.Stats{}

// hostileSize is the adversary tests' room: honest clients, hostile
// ones (-1: 30% of the room) and frames. By default 100 honest clients
// with one hostile, 50 with 30% of the room hostile, 100 frames; with
// TICKWIRE_STATESYNC_FULL=1, 100 honest clients and 200 frames for both;
// with -short, 30 honest clients; under the race detector, 20 for 60
// frames.
func hostileSize(k int) (honest, hostile, frames int) {
	honest, frames = 100, 100
	switch {
	case os.Getenv("TICKWIRE_STATESYNC_FULL") == "1":
		frames = 200
	case raceEnabled:
		honest, frames = 20, 60
	case testing.Short():
		honest = 30
	case k < 0:
		honest = 50
	}
	if k < 0 {
		k = honest * 3 / 7 // 30% of honest+k
	}
	return honest, k, frames
}

// hostileRoom runs the adversary: honest clients plus k hostile
// ones using tactics t, against the same room without them, and checks
// the invariants of every frame. An honest client is corrupted every 40
// frames so that repairs run under attack too.
func hostileRoom(t *testing.T, honest, nHostile, frames int, tt hostile.Tactic) *attackLedger {
	t.Helper()
	const corruptEvery = 40
	calm, ok := calmRuns[[2]int{honest, frames}]
	if !ok {
		var bad []string
		_, calm, _, bad = attackRun(t, 5, honest, 0, 0, frames, corruptEvery)
		if len(bad) > 0 {
			t.Fatalf("attack-free run: %v", bad[:min(5, len(bad))])
		}
		calmRuns[[2]int{honest, frames}] = calm
	}
	l, st, cpu, bad := attackRun(t, 5, honest, nHostile, tt, frames, corruptEvery)
	for _, b := range bad[:min(10, len(bad))] {
		t.Error(b)
	}
	if w, w0 := serverWork(st), serverWork(calm); w > 2*w0 {
		t.Errorf("server work %d under attack, %d without: more than twice", w, w0)
	}
	if want := frames / corruptEvery; l.repaired < want {
		t.Errorf("%d honest repairs completed, want %d", l.repaired, want)
	}
	t.Logf("%d honest + %d hostile, %d frames: tiers %v; work %d vs %d attack-free; peak retained %d B; core CPU %v per frame (not asserted)",
		honest, nHostile, frames, l.tiers[1:], serverWork(st), serverWork(calm), l.retained, cpu/time.Duration(frames))
	t.Logf("strangers %d, rejected %d, offences %v, removed %d; honest repairs %d (at most %d frames, %d bytes), fallbacks %d, states rejected %d",
		st.StrangerPartitions, st.PartitionsRejected, st.Offences[1:], st.Removed, l.repaired, l.repairFrames, l.repairBytes,
		st.SnapshotFallbacks, st.StatesRejected)
	return l
}

// TestHostileOne: one hostile client using every tactic beside 100
// honest ones. Every frame is verified at tier 1 or 2.
func TestHostileOne(t *testing.T) {
	honest, n, frames := hostileSize(1)
	l := hostileRoom(t, honest, n, frames, hostile.All)
	if l.tiers[statesync.TierMinimal]+l.tiers[statesync.TierSkip] > 0 {
		t.Errorf("tiers %v: a frame below tier 2 with one hostile client", l.tiers[1:])
	}
}

// TestHostileThirtyPercent: hostile clients using every tactic are 30% of
// the room.
func TestHostileThirtyPercent(t *testing.T) {
	honest, n, frames := hostileSize(-1)
	hostileRoom(t, honest, n, frames, hostile.All)
}

// TestHostileSources: 30% of the room plays every frame honestly, keeps
// its reliability score, and lies only when it sources a repair or a full
// state (forged leaves and entities, consistent with each other; forged
// full-state parts). Honest repairs and late joins still only ever take
// the honest majority's state, and every source that lied is named.
func TestHostileSources(t *testing.T) {
	honest, n, frames := hostileSize(-1)
	hostileRoom(t, honest, n, frames, hostile.ForgeLeaves|hostile.ForgeState)
}

// FuzzHostileRoom: the fuzzer plays the hostile clients of a room of 5
// honest and 2 hostile ones, for up to 20 frames: each pair of input bytes is one frame's
// tactics (both hostile clients) and how late their own messages go out.
// The oracle is the adversary harness's invariants: no honest client's
// score falls, is charged with an offence or is set to a state the honest
// majority does not have; the room's memory stays bounded; the honest
// clients end in sync.
func FuzzHostileRoom(f *testing.F) {
	f.Add([]byte{0xFF, 0, 0xFF, 0x01, 0x10, 0x80, 0x02, 0x20})
	f.Add([]byte{byte(hostile.Early), 0, byte(hostile.Flood), 5, byte(hostile.VoteLow), 0})
	f.Add([]byte{byte(hostile.Bomb), 0, byte(hostile.ForgePart), 90, byte(hostile.Reset >> 8), 200})
	f.Fuzz(func(t *testing.T, plan []byte) {
		if len(plan) > 40 {
			plan = plan[:40]
		}
		r := newRoom(t, 3, statesync.Config{Seed: 3}, 40)
		r.jitter = 0
		for id := uint32(1); id <= 7; id++ {
			r.join(id)
		}
		r.frames(5)
		honest := []uint32{1, 2, 3, 4, 6}
		l := newLedger(r, honest)
		for i := 0; i+1 < len(plan); i += 2 {
			tt := hostile.Tactic(plan[i]) | hostile.Tactic(plan[i]&0x80)<<1
			r.hostile[5], r.hostile[7] = tt, tt
			r.injectDelay = time.Duration(plan[i+1]) * time.Millisecond
			for _, b := range l.frame() {
				t.Error(b)
			}
		}
		delete(r.hostile, 5)
		delete(r.hostile, 7)
		r.frames(20)
		if l.retained > 64<<10 {
			t.Errorf("retained %d bytes", l.retained)
		}
		var first uint32
		for i, id := range honest {
			p := r.clients[id]
			if !p.c.Running() {
				t.Errorf("honest client %d not running at the end", id)
				continue
			}
			if h := p.c.Hash(); i == 0 {
				first = h
			} else if h != first {
				t.Errorf("honest client %d ends with another state", id)
			}
		}
	})
}
