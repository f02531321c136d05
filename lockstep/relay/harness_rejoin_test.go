package relay

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/tickwire/tickwire/lockstep/msg"
)

// simRejoin is a scripted client's part in reconnection: as a donor it
// sends a snapshot when it applies the tick asked for (its "state" is the
// tick's sync hash, in two chunks); as a rejoining player it checks the
// snapshot against the agreed hash, reports the verdict and, at once, that
// it caught up.
type simRejoin struct {
	gone, rejoining bool
	lie             bool     // as a donor, forge the snapshot
	collide         bool     // as a donor, forge the state but keep its sync hash
	mute            bool     // as a donor, never send the snapshot
	donate          []uint64 // ticks asked for
	witness         []uint64 // ticks whose digest was asked for
	tick            uint64   // the snapshot expected
	chunks          [][]byte
	total           int
	hash            uint64
	haveHash        bool
	digest          [32]byte
	haveDigest      bool
}

// simSnapshot is the honest snapshot of tick: its sync hash, padded; a
// lie changes the hash, a collision the state behind an unchanged hash
// (what a forger of a 64-bit hash achieves).
func simSnapshot(tick uint64, lie, collide bool) []byte {
	b := binary.LittleEndian.AppendUint64(nil, simHash(tick))
	if lie {
		b[0] ^= 1
	}
	b = append(b, "-state-"...)
	if collide {
		b[len(b)-2] = 'X'
	}
	return b
}

// simHash is the state hash every honest scripted client reports.
func simHash(tick uint64) uint64 { return tick * 0x9e3779b97f4a7c15 }

// copyRejoin keeps what a client needs of a rejoin message.
func copyRejoin(m msg.Message) (frameCopy, bool) {
	switch m := m.(type) {
	case *msg.RejoinStart:
		return frameCopy{kind: kRejoinStart, tick: m.SnapshotTick}, true
	case *msg.SnapshotRequest:
		return frameCopy{kind: kSnapshotRequest, tick: m.Tick}, true
	case *msg.SnapshotChunk:
		return frameCopy{kind: kChunk, tick: m.Tick, seq: m.Index, total: m.Total, data: slices.Clone(m.Data)}, true
	case *msg.SnapshotHash:
		return frameCopy{kind: kSnapshotHash, tick: m.Tick, hash: m.Hash}, true
	case *msg.DigestRequest:
		return frameCopy{kind: kDigestRequest, tick: m.Tick}, true
	case *msg.SnapshotDigest:
		return frameCopy{kind: kSnapshotDigest, tick: m.Tick, digest: m.Digest}, true
	}
	return frameCopy{}, false
}

// receiveRejoin is a client's reaction to a rejoin message.
func (n *simNet) receiveRejoin(c *simClient, f frameCopy) {
	r := &c.rejoin
	switch f.kind {
	case kSnapshotRequest:
		r.donate = append(r.donate, f.tick)
	case kDigestRequest:
		r.witness = append(r.witness, f.tick)
	case kRejoinStart:
		r.tick, r.chunks, r.total, r.haveHash, r.haveDigest = f.tick, nil, 0, false, false
	case kChunk:
		if f.tick == r.tick && int(f.seq) == len(r.chunks) {
			r.chunks, r.total = append(r.chunks, f.data), int(f.total)
		}
	case kSnapshotHash:
		if f.tick == r.tick {
			r.hash, r.haveHash = f.hash, true
		}
	case kSnapshotDigest:
		if f.tick == r.tick {
			r.digest, r.haveDigest = f.digest, true
		}
	}
	if r.rejoining && r.haveHash && r.haveDigest && r.total > 0 && len(r.chunks) == r.total {
		data := slices.Concat(r.chunks...)
		ok := sha256.Sum256(data) == r.digest && len(data) >= 8 && binary.LittleEndian.Uint64(data) == r.hash
		n.toRelay(c, &msg.SnapshotVerdict{Tick: r.tick, OK: ok}, 0)
		r.chunks, r.total, r.haveHash, r.haveDigest = nil, 0, false, false
		if ok {
			r.rejoining = false
			n.toRelay(c, &msg.CaughtUp{Tick: c.lastTick}, 0)
			c.nextTick = uint64(max(WindowOf(n.core.timeline.start, n.core.timeline.interval, c.estimate(n.now))+1, 0))
			c.haveFrame = false
		}
	}
}

// donateOnFrame sends c's snapshot of tick if a donor request names it,
// and its digest if a digest request does (a witness is honest: it
// digests the true state whatever it would donate).
func (n *simNet) donateOnFrame(c *simClient, tick uint64) {
	r := &c.rejoin
	if i := slices.Index(r.witness, tick); i >= 0 {
		r.witness = slices.Delete(r.witness, i, i+1)
		n.toRelay(c, &msg.SnapshotDigest{Tick: tick, Digest: sha256.Sum256(simSnapshot(tick, false, false))}, 0)
	}
	i := slices.Index(r.donate, tick)
	if i < 0 || r.mute {
		return
	}
	r.donate = slices.Delete(r.donate, i, i+1)
	data := simSnapshot(tick, r.lie, r.collide)
	half := len(data) / 2
	n.toRelay(c, &msg.SnapshotChunk{Tick: tick, Index: 0, Total: 2, Data: data[:half]}, 0)
	n.toRelay(c, &msg.SnapshotChunk{Tick: tick, Index: 1, Total: 2, Data: data[half:]}, 0)
}

func fmtRejoin(m msg.Message) (string, bool) {
	switch m := m.(type) {
	case *msg.RejoinStart:
		return fmt.Sprintf("RejoinStart attempt=%d snapshot-tick=%d delay=%d", m.Attempt, m.SnapshotTick, m.DelayTicks), true
	case *msg.SnapshotRequest:
		return fmt.Sprintf("SnapshotRequest tick=%d", m.Tick), true
	case *msg.SnapshotChunk:
		return fmt.Sprintf("SnapshotChunk tick=%d %d/%d %dB", m.Tick, m.Index+1, m.Total, len(m.Data)), true
	case *msg.SnapshotHash:
		return fmt.Sprintf("SnapshotHash tick=%d hash=%#x", m.Tick, m.Hash), true
	case *msg.DigestRequest:
		return fmt.Sprintf("DigestRequest tick=%d", m.Tick), true
	case *msg.SnapshotDigest:
		return fmt.Sprintf("SnapshotDigest tick=%d digest=%x", m.Tick, m.Digest[:4]), true
	case *msg.RejoinKeepalive:
		return fmt.Sprintf("RejoinKeepalive next=%d chunks=%d", m.NextTick, m.Chunks), true
	}
	return "", false
}

func fmtRejoinEvent(e Event) (string, bool) {
	switch e := e.(type) {
	case PlayerAway:
		return fmt.Sprintf("event PlayerAway p=%d until=%v", e.Player, e.Until), true
	case SnapshotRequested:
		return fmt.Sprintf("event SnapshotRequested to=%d donor=%d tick=%d attempt=%d", e.To, e.Donor, e.Tick, e.Attempt), true
	case DonorFailed:
		return fmt.Sprintf("event DonorFailed to=%d donor=%d tick=%d: %s", e.To, e.Donor, e.Tick, e.Reason), true
	case SnapshotLoaded:
		return fmt.Sprintf("event SnapshotLoaded to=%d donor=%d tick=%d chunks=%d after=%v", e.To, e.Donor, e.Tick, e.Chunks, e.After), true
	case PlayerRejoined:
		return fmt.Sprintf("event PlayerRejoined p=%d tick=%d rejoins=%d", e.Player, e.Tick, e.Rejoins), true
	case TransferAborted:
		return fmt.Sprintf("event TransferAborted to=%d observer=%v attempts=%d: %s", e.To, e.Observer, e.Attempts, e.Reason), true
	}
	return "", false
}
