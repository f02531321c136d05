package statesync

import (
	"slices"
	"time"

	"github.com/tickwire/tickwire/statesync/msg"
)

// Desync recovery. A client whose hash disagreed with the majority at
// frame f is asked, in the next Tick (frame F), to freeze after F and send
// its Merkle leaves; the most reliable client in the majority (the
// provider) is asked in the same Tick for its leaves and to keep F's
// state. Comparing the two trees localises the divergent buckets; the
// provider sends their entities, the server checks them against the
// provider's leaves and sends them to the client as a
// PARTITION_CORRECTION, which the client applies and checks against the
// majority hash of F before it replays the Ticks it held back. Anything
// that fails or takes too long falls back to a full snapshot (the client
// goes back to SYNCING).

// RecoveryTimeout is how long a recovery may take before the snapshot
// fallback, in request timeouts.
const recoveryTimeouts = 20

// checkpoint is the recoveries sharing one provider and frame.
type checkpoint struct {
	frame     uint32
	provider  uint32
	members   []*recovery
	leaves    []msg.Leaf // the provider's
	haveLeaf  bool
	decided   bool
	majority  uint32
	digest    msg.Digest // more than half of the voters agreed on it
	requested []uint32   // buckets asked of the provider
	bytes     int        // provider traffic, charged to every member
}

type recovery struct {
	cp        *checkpoint
	client    uint32
	detected  uint32 // the frame whose verdict found it
	frame     uint32 // the checkpoint frame
	deadline  time.Duration
	leaves    []msg.Leaf
	haveLeaf  bool
	divergent []uint32
	corrected bool
	bytes     int
}

func (r *recovery) abandon() {
	if r.cp != nil {
		r.cp.members = slices.DeleteFunc(r.cp.members, func(x *recovery) bool { return x == r })
	}
}

// startRecovery starts the recovery of a client the verdict of a frame
// with a majority named, in read-only mode too: copying the majority's
// state to a minority client writes nothing to the room's history.
func (s *Server) startRecovery(c *client, detected uint32) {
	if s.countDesync(c) {
		return
	}
	if s.checkpoint == nil {
		s.checkpoint = &checkpoint{}
	}
	r := &recovery{cp: s.checkpoint, client: c.id, detected: detected,
		deadline: s.now + recoveryTimeouts*s.cfg.RequestTimeout + s.cfg.SubmitWindow}
	s.checkpoint.members = append(s.checkpoint.members, r)
	c.recovering = r
	s.stats.Desyncs++
	s.emit(Event{Kind: EventDesync, Client: c.id, Frame: detected})
}

// recoveryRequests fixes the pending checkpoint at frame f and returns its
// Tick requests.
func (s *Server) recoveryRequests(f uint32) []msg.Request {
	cp := s.checkpoint
	if cp == nil || len(cp.members) == 0 {
		s.checkpoint = nil
		return nil
	}
	provider, ok := s.mostReliable(1, nil)
	if !ok {
		return nil // nobody to copy from yet; try at the next frame
	}
	s.checkpoint = nil
	cp.frame, cp.provider = f, provider[0]
	reqs := []msg.Request{{Client: cp.provider, Kind: msg.RequestLeaves}}
	for _, r := range cp.members {
		r.frame = f
		reqs = append(reqs, msg.Request{Client: r.client, Kind: msg.RequestFreeze})
	}
	s.recoveries = append(s.recoveries, cp)
	return reqs
}

// mostReliable returns up to n ACTIVE clients in sync, not suspected,
// drawn at random by the server's own seed from the more reliable half:
// a high score alone does not make a client the source, and no client can
// tell in advance which ones will be.
func (s *Server) mostReliable(n int, exclude []uint32) ([]uint32, bool) {
	var ids []uint32
	for _, id := range s.list {
		c := s.clients[id]
		if c != nil && c.state == StateActive && c.recovering == nil && !slices.Contains(exclude, id) &&
			!slices.Contains(s.desynced, id) && !s.suspect(id) {
			ids = append(ids, id)
		}
	}
	slices.SortStableFunc(ids, func(a, b uint32) int { return int(s.rel.Score(b)) - int(s.rel.Score(a)) })
	ids = ids[:min(len(ids), max(n, (len(ids)+1)/2))]
	for i := range min(n, len(ids)) {
		j := i + int(s.rng.next()%uint64(len(ids)-i))
		ids[i], ids[j] = ids[j], ids[i]
	}
	ids = ids[:min(n, len(ids))]
	return ids, len(ids) > 0
}

func (s *Server) checkpointOf(frame uint32, client uint32) (*checkpoint, *recovery) {
	for _, cp := range s.recoveries {
		if cp.frame != frame {
			continue
		}
		if cp.provider == client {
			return cp, nil
		}
		for _, r := range cp.members {
			if r.client == client {
				return cp, r
			}
		}
	}
	return nil, nil
}

func (s *Server) onLeaves(c *client, m *msg.MerkleLeaves) error {
	cp, r := s.checkpointOf(m.Frame, c.id)
	if cp == nil {
		return ErrFrame
	}
	size := s.size(m)
	if r == nil {
		if cp.haveLeaf {
			return ErrUnexpected
		}
		cp.leaves, cp.haveLeaf, cp.bytes = slices.Clone(m.Leaves), true, cp.bytes+size
	} else {
		if r.haveLeaf {
			return ErrUnexpected
		}
		r.leaves, r.haveLeaf, r.bytes = slices.Clone(m.Leaves), true, r.bytes+size
	}
	s.progressCheckpoint(cp)
	return nil
}

func (s *Server) verdictForCheckpoints(fr *frameRec) {
	for _, cp := range slices.Clone(s.recoveries) {
		if cp.frame != fr.frame {
			continue
		}
		cp.decided, cp.majority, cp.digest = true, fr.majority, fr.digest.digest
		if h, ok := fr.hashes[cp.provider]; !fr.agreed || !ok || h != fr.majority {
			s.failCheckpoint(cp)
			continue
		}
		for _, r := range slices.Clone(cp.members) {
			if h, ok := fr.hashes[r.client]; ok && h == fr.majority {
				// It agrees again at the checkpoint: nothing to correct,
				// only unfreeze it.
				r.divergent, r.haveLeaf = nil, true
				s.sendCorrection(cp, r, nil, nil)
			}
		}
		s.progressCheckpoint(cp)
	}
}

func (s *Server) progressCheckpoint(cp *checkpoint) {
	if !cp.decided || !cp.haveLeaf || cp.requested != nil {
		return
	}
	if LeavesDigest(cp.leaves) != cp.digest {
		// The source's leaves are not the state the voters agreed on:
		// evidence against it, before anything reaches the client.
		if c := s.clients[cp.provider]; c != nil {
			s.rel.Fail(c.id)
			s.offend(c, OffenceBadState)
			s.distrust(c.id)
		}
		s.failCheckpoint(cp)
		return
	}
	var union []uint32
	provider := NewMerkleTree(cp.leaves)
	for _, r := range cp.members {
		if r.corrected {
			continue
		}
		if !r.haveLeaf {
			return
		}
		r.divergent, _ = Divergent(nil, NewMerkleTree(r.leaves), provider)
		union = append(union, r.divergent...)
	}
	for _, r := range slices.Clone(cp.members) {
		if !r.corrected && len(r.divergent) == 0 {
			// Its hash disagrees but its leaves do not: it reported a
			// hash of no state it has. Only a full state can settle it.
			if c := s.clients[r.client]; c != nil && c.recovering == r {
				s.snapshotFallback(c)
			}
		}
	}
	slices.Sort(union)
	union = slices.Compact(union)
	if len(union) == 0 {
		s.finishCheckpoint(cp)
		return
	}
	cp.requested = union
	req := &msg.EntityRequest{Frame: cp.frame, Buckets: union}
	cp.bytes += s.size(req)
	s.send(cp.provider, req)
}

func (s *Server) onCorrectionData(c *client, m *msg.EntityData) error {
	cp, r := s.checkpointOf(m.Frame, c.id)
	if cp == nil || r != nil || cp.requested == nil {
		return ErrUnexpected
	}
	cp.bytes += s.size(m)
	set, err := s.comp.Decode(nil, m.Encoding, m.Data)
	if err == nil {
		err = s.checkBuckets(cp, set)
	}
	if err != nil {
		// Its entities do not match its own leaves: evidence.
		s.rel.Fail(cp.provider)
		s.offend(c, OffenceBadState)
		s.distrust(cp.provider)
		s.failCheckpoint(cp)
		return err
	}
	for _, r := range slices.Clone(cp.members) {
		if r.corrected {
			continue
		}
		var mine []byte
		rd := ReadEntities(set)
		for e, ok := rd.Next(); ok; e, ok = rd.Next() {
			if _, in := slices.BinarySearch(r.divergent, BucketOf(e.ID)); in {
				mine = AppendEntity(mine, e.ID, e.Data)
			}
		}
		s.sendCorrection(cp, r, r.divergent, mine)
	}
	s.finishCheckpoint(cp)
	return nil
}

// checkBuckets verifies the provider's entities against its own leaves:
// every requested bucket's entities must hash to the provider's leaf, and
// a bucket it has no leaf for must be empty.
func (s *Server) checkBuckets(cp *checkpoint, set []byte) error {
	got := map[uint32][]byte{}
	rd := ReadEntities(set)
	for e, ok := rd.Next(); ok; e, ok = rd.Next() {
		b := BucketOf(e.ID)
		if _, in := slices.BinarySearch(cp.requested, b); !in {
			return ErrMalformed
		}
		got[b] = AppendEntity(got[b], e.ID, e.Data)
	}
	if rd.Err() != nil {
		return rd.Err()
	}
	for _, b := range cp.requested {
		i, ok := slices.BinarySearchFunc(cp.leaves, b, func(l msg.Leaf, b uint32) int { return cmpU32(l.Bucket, b) })
		switch {
		case ok && LeafHash(got[b]) != cp.leaves[i].Hash:
			return ErrMalformed
		case !ok && len(got[b]) > 0:
			return ErrMalformed
		}
	}
	return nil
}

func (s *Server) sendCorrection(cp *checkpoint, r *recovery, buckets []uint32, set []byte) {
	enc, data := s.comp.Encode(nil, set)
	m := &msg.PartitionCorrection{Frame: cp.frame, Hash: cp.majority, Digest: cp.digest, Buckets: buckets, Encoding: enc, Data: data}
	r.bytes += s.size(m)
	r.corrected = true
	s.send(r.client, m)
	s.stats.Corrections++
	s.emit(Event{Kind: EventCorrectionSent, Client: r.client, Frame: cp.frame, Count: len(buckets), Bytes: r.bytes + cp.bytes})
}

// silent reports whether the checkpoint's provider still owes what it was
// asked for (its leaves, or the entities of the divergent buckets) after
// the frame was decided and a member's deadline passed.
func (cp *checkpoint) silent(now time.Duration) bool {
	if !cp.decided || cp.haveLeaf && cp.requested == nil {
		return false
	}
	for _, r := range cp.members {
		if !r.corrected && now > r.deadline {
			return true
		}
	}
	return false
}

func (s *Server) finishCheckpoint(cp *checkpoint) {
	s.recoveries = slices.DeleteFunc(s.recoveries, func(x *checkpoint) bool { return x == cp })
}

// failCheckpoint sends every member not yet corrected to the snapshot
// fallback.
func (s *Server) failCheckpoint(cp *checkpoint) {
	s.finishCheckpoint(cp)
	for _, r := range slices.Clone(cp.members) {
		if c := s.clients[r.client]; c != nil && c.recovering == r && !r.corrected {
			s.snapshotFallback(c)
		}
	}
}

func (s *Server) snapshotFallback(c *client) {
	s.stats.SnapshotFallbacks++
	s.emit(Event{Kind: EventSnapshotFallback, Client: c.id, Frame: s.next})
	c.lateJoinAt = s.now
	r := c.recovering
	s.resync(c)
	c.recovering = r // closed by promote when the client agrees again
	if r != nil {
		r.abandon()
		r.cp = nil
	}
}

// recovered closes a client's recovery when its hash agrees again.
func (s *Server) recovered(c *client, frame uint32) {
	r := c.recovering
	c.recovering = nil
	r.abandon()
	bytes := r.bytes
	if r.cp != nil {
		bytes += r.cp.bytes
	}
	s.stats.Recovered++
	s.emit(Event{Kind: EventRecovered, Client: c.id, Frame: frame, Frames: frame - r.detected, Bytes: bytes})
}

// expireRecoveries sends recoveries that took too long to the fallback.
func (s *Server) expireRecoveries() {
	for _, cp := range slices.Clone(s.recoveries) {
		if cp.silent(s.now) {
			// The provider owes leaves or entities it was asked for past
			// its members' deadline: charged like a silent late-join
			// source (the frame's voters agreed, so the silence is its).
			s.rel.Fail(cp.provider)
			s.stats.SilentProviders++
			s.failCheckpoint(cp)
		}
	}
	for _, c := range s.sortedClients() {
		if r := c.recovering; r != nil && c.state == StateActive && s.now > r.deadline {
			s.snapshotFallback(c)
		}
	}
	for _, cp := range slices.Clone(s.recoveries) {
		if len(cp.members) == 0 {
			s.finishCheckpoint(cp)
		}
	}
}

// size is a message's encoded length.
func (s *Server) size(m msg.Message) int {
	var err error
	s.scratch, err = msg.Append(s.scratch[:0], m)
	if err != nil {
		return 0
	}
	return len(s.scratch)
}
