package statesync

import (
	"fmt"
	"slices"
	"time"

	"github.com/tickwire/tickwire/statesync/msg"
)

type frameStage uint8

const (
	collecting frameStage = iota // hashes and partitions arrive
	filling                      // verdict given; missing partitions asked for
	closed
)

// frameRec is what the server collects for one broadcast frame.
type frameRec struct {
	frame       uint32
	sentAt      time.Duration
	stage       frameStage
	list        []uint32 // the sender pool the frame was assigned with
	listVersion uint32
	scores      []msg.Score
	readOnly    bool
	hashes      map[uint32]uint32
	subs        map[uint16][]partSub
	nsubs       int
	parts       int // learned from trusted partitions; 0 unknown
	majority    uint32
	decided     bool
	asked       map[uint16]ask
	assign      Assignment
	window      time.Duration // deadline = sentAt + window
}

type partSub struct {
	from  uint32
	at    time.Duration
	parts uint16
	enc   msg.Encoding
	data  []byte
}

type ask struct {
	to   uint32
	tier Tier
}

func (f *frameRec) deadline() time.Duration {
	return f.sentAt + f.window
}

// broadcastTick sends the next frame's Tick with everything that rides on
// it, and opens the frame's collection.
func (s *Server) broadcastTick() {
	s.started = true
	s.timeoutClients()
	s.quorum.update(s, len(s.list))
	if s.listDirty {
		s.listVersion++
		s.listDirty = false
		s.broadcast(&msg.ClientListUpdate{Version: s.listVersion, Clients: s.list})
	}
	if s.next%ReliabilityInterval == 0 {
		if u, ok := s.rel.Publish(); ok {
			s.broadcast(&u)
		}
	}
	f := s.next
	t := &msg.Tick{Frame: f, ReliabilityVersion: s.rel.Version(), ClientListVersion: s.listVersion, ReadOnly: s.quorum.readOnly}
	t.Inputs = s.collectInputs()
	if s.verdict != nil {
		t.HasVerdict, t.Verdict = true, *s.verdict
		slices.Sort(s.desynced)
		t.Verdict.Desynced = slices.Compact(s.desynced)
		s.verdict, s.desynced = nil, nil
	}
	if s.assembled.pending {
		t.HasAssembled = true
		t.Assembled = msg.Assembled{Frame: s.assembled.frame, Hash: HashBytes(s.assembled.delta), Delta: s.assembled.delta}
		s.assembled.pending = false
	}
	t.Requests = s.tickRequests(f)
	s.broadcast(t)
	s.stats.Frames++
	s.frames = append(s.frames, &frameRec{
		frame: f, sentAt: s.now, list: s.list, listVersion: s.listVersion, scores: s.rel.Table().Scores,
		readOnly: s.quorum.readOnly, hashes: make(map[uint32]uint32, len(s.list)),
		window: s.cfg.SubmitWindow,
	})
	s.next++
	s.nextAt += s.interval
	if s.nextAt < s.now-5*s.interval {
		s.nextAt = s.now // a stalled embedder does not get a burst of frames
	}
}

// collectInputs takes every client's input for the frame, and an empty
// input for each client that left since the last frame (so the game
// removes its player at the same frame on every machine).
func (s *Server) collectInputs() []msg.ClientInput {
	var in []msg.ClientInput
	for _, id := range s.departed {
		if s.clients[id] == nil && !slices.ContainsFunc(in, func(x msg.ClientInput) bool { return x.Client == id }) {
			in = append(in, msg.ClientInput{Client: id})
		}
	}
	s.departed = s.departed[:0]
	for _, c := range s.clients {
		if len(c.input) > 0 {
			in = append(in, msg.ClientInput{Client: c.id, Data: slices.Clone(c.input)})
			c.input = c.input[:0]
		}
	}
	slices.SortFunc(in, func(a, b msg.ClientInput) int { return cmpU32(a.Client, b.Client) })
	return in
}

// timeoutClients drops the ACTIVE clients silent for ClientTimeout. A
// SYNCING client has nothing to say until its state comes, however long
// the assembly takes; its embedder reports its connection's end.
func (s *Server) timeoutClients() {
	for _, c := range s.sortedClients() {
		if c.state == StateActive && s.now-c.lastHeard > s.cfg.ClientTimeout {
			s.emit(Event{Kind: EventTimedOut, Client: c.id, Frame: s.next})
			s.drop(c)
		}
	}
}

func (s *Server) frame(f uint32) *frameRec {
	for _, r := range s.frames {
		if r.frame == f {
			return r
		}
	}
	return nil
}

func (s *Server) onHash(c *client, m *msg.StateHash) error {
	r := s.frame(m.Frame)
	if r == nil || r.stage != collecting {
		return fmt.Errorf("%w: hash for frame %d", ErrFrame, m.Frame)
	}
	if _, dup := r.hashes[c.id]; !dup {
		r.hashes[c.id] = m.Hash
	}
	return nil
}

// maxSubsPerFrame bounds what one frame may hold, whatever clients send.
func (r *frameRec) maxSubs() int { return 2*len(r.list) + 16 }

func (s *Server) onPartition(c *client, m *msg.PartitionData) error {
	r := s.frame(m.Frame)
	if r == nil || r.stage == closed || r.readOnly {
		return fmt.Errorf("%w: partition for frame %d", ErrFrame, m.Frame)
	}
	if m.ListVersion != r.listVersion && r.asked[m.Part].to != c.id {
		return fmt.Errorf("%w: %d, frame %d was assigned with %d", ErrVersion, m.ListVersion, m.Frame, r.listVersion)
	}
	if r.nsubs >= r.maxSubs() {
		return fmt.Errorf("%w: frame %d holds %d partitions", ErrUnexpected, m.Frame, r.nsubs)
	}
	for _, sub := range r.subs[m.Part] {
		if sub.from == c.id {
			return fmt.Errorf("%w: partition %d of frame %d twice", ErrUnexpected, m.Part, m.Frame)
		}
	}
	if r.subs == nil {
		r.subs = make(map[uint16][]partSub)
	}
	r.subs[m.Part] = append(r.subs[m.Part], partSub{from: c.id, at: s.now, parts: m.Parts, enc: m.Encoding, data: slices.Clone(m.Data)})
	r.nsubs++
	s.stats.PartitionBytesIn += uint64(len(m.Data))
	if r.stage == filling {
		s.tryAssemble(r)
	}
	return nil
}

// closeFrames gives the verdict on frames whose collection window is over
// and gives up on those whose missing partitions did not come, in frame
// order (a frame waiting for partitions outlives the next one's window).
func (s *Server) closeFrames() {
	for _, r := range s.frames {
		if r.deadline() > s.now {
			continue
		}
		switch r.stage {
		case collecting:
			s.decide(r)
		case filling:
			s.emitTier(r, TierSkip)
			r.stage = closed
		}
	}
	s.frames = slices.DeleteFunc(s.frames, func(r *frameRec) bool { return r.stage == closed })
	s.stats.OpenFrames = len(s.frames)
}

// majority is the most common hash among ACTIVE clients' (ties go to the
// smaller hash, so the verdict does not depend on map order).
func (s *Server) majority(r *frameRec) (hash uint32, count, voters int) {
	counts := make(map[uint32]int)
	for id, h := range r.hashes {
		if c := s.clients[id]; c != nil && c.state == StateActive {
			counts[h]++
			voters++
		}
	}
	for h, n := range counts {
		if n > count || n == count && h < hash {
			hash, count = h, n
		}
	}
	return hash, count, voters
}

func (s *Server) decide(r *frameRec) {
	hash, count, voters := s.majority(r)
	if voters == 0 {
		r.stage = closed
		s.emitTier(r, TierSkip)
		return
	}
	r.majority, r.decided = hash, true
	v := &msg.Verdict{Frame: r.frame, Hash: hash}
	ids := make([]uint32, 0, len(r.hashes))
	for id := range r.hashes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		h, c := r.hashes[id], s.clients[id]
		if c == nil {
			continue
		}
		switch {
		case c.state == StateActive && h != hash:
			v.Desynced = append(v.Desynced, id)
		case c.state == StateSyncing && h == hash && c.syncedFrom != 0 && r.frame > c.syncedFrom:
			s.promote(c, r.frame)
		case c.state == StateActive && c.recovering != nil && r.frame > c.recovering.frame:
			s.recovered(c, r.frame)
		}
	}
	slices.Sort(v.Desynced)
	s.verdict = v
	s.desynced = append(s.desynced, v.Desynced...)
	s.stats.Verdicts++
	s.stats.Agreeing += uint64(count)
	s.stats.Voters += uint64(voters)
	s.emit(Event{Kind: EventVerdict, Frame: r.frame, Hash: hash, Clients: v.Desynced, Count: count, Voters: voters})
	for _, id := range v.Desynced {
		if c := s.clients[id]; c != nil && c.recovering == nil {
			s.startRecovery(c, r.frame)
		}
	}
	s.verdictForCheckpoints(r)
	s.verdictForAssemblies(r)
	if r.readOnly {
		r.stage = closed
		return
	}
	s.fillPartitions(r)
}

// trusted reports whether a partition comes from a client whose hash is
// the majority's and claims the majority's result: the seed's trust model.
func (s *Server) trusted(r *frameRec, sub *partSub) (Delta, bool) {
	if h, ok := r.hashes[sub.from]; !ok || h != r.majority {
		return Delta{}, false
	}
	if r.parts != 0 && int(sub.parts) != r.parts {
		return Delta{}, false
	}
	raw, err := s.comp.Decode(nil, sub.enc, sub.data)
	if err != nil {
		return Delta{}, false
	}
	d, err := ParseDelta(raw)
	if err != nil || d.Frame != r.frame || d.ResultHash != r.majority {
		return Delta{}, false
	}
	return d, true
}

// fillPartitions checks the partitions that came during the window and
// asks for the missing ones.
func (s *Server) fillPartitions(r *frameRec) {
	for _, subs := range r.subs {
		for i := range subs {
			if _, ok := s.trusted(r, &subs[i]); ok && r.parts == 0 {
				r.parts = int(subs[i].parts)
			}
		}
	}
	s.rejectUntrusted(r)
	r.stage = filling
	r.window += s.cfg.RequestTimeout
	r.asked = make(map[uint16]ask)
	if r.parts == 0 {
		// No trusted partition at all: the partition count is unknown;
		// ask one majority client for every partition.
		if to, ok := s.anyMajority(r, nil); ok {
			r.asked[0] = ask{to: to, tier: TierMinimal}
			s.send(to, &msg.PartitionRequest{Frame: r.frame})
			s.stats.PartitionRequests++
		}
		return
	}
	r.assign = s.assigner.Assign(AssignInput{Frame: r.frame, ListVersion: r.listVersion, Clients: r.list,
		Score: func(c uint32) uint16 { return ScoreIn(r.scores, c) }, Parts: r.parts, Redundancy: s.churn.redundancy(s.now, len(s.list))})
	for p := range r.parts {
		part := uint16(p)
		primary, _ := r.assign.Primary(p)
		if sub, ok := s.firstTrusted(r, part); ok && sub.from == primary {
			s.rel.Succeed(primary, sub.at-r.sentAt)
			continue
		}
		if s.clients[primary] != nil {
			s.rel.Fail(primary)
		}
		if _, ok := s.firstTrusted(r, part); ok {
			continue
		}
		s.askFallback(r, part)
	}
	s.tryAssemble(r)
}

// rejectUntrusted reports partitions refused by the trust model: from a
// client whose hash is not the majority's, or whose content does not
// match the majority. (A partition whose sender's hash was lost is
// ignored without blame.)
func (s *Server) rejectUntrusted(r *frameRec) {
	parts := make([]uint16, 0, len(r.subs))
	for part := range r.subs {
		parts = append(parts, part)
	}
	slices.Sort(parts)
	for _, part := range parts {
		subs := r.subs[part]
		for i := range subs {
			if _, voted := r.hashes[subs[i].from]; !voted {
				continue
			}
			if _, ok := s.trusted(r, &subs[i]); !ok {
				s.stats.PartitionsRejected++
				s.rel.Fail(subs[i].from)
				s.emit(Event{Kind: EventPartitionRejected, Client: subs[i].from, Frame: r.frame, Part: part})
			}
		}
	}
}

func (s *Server) firstTrusted(r *frameRec, part uint16) (*partSub, bool) {
	subs := r.subs[part]
	for i := range subs {
		if _, ok := s.trusted(r, &subs[i]); ok {
			return &subs[i], true
		}
	}
	return nil, false
}

// askFallback asks for a missing partition: the first backup candidate of
// the assignment whose hash is the majority's (tier 2), else any ACTIVE
// client with the majority hash (tier 3).
func (s *Server) askFallback(r *frameRec, part uint16) {
	cands := r.assign.Candidates(int(part))
	for _, c := range cands[1:] {
		if c != cands[0] && s.hasMajority(r, c) {
			s.requestPartition(r, part, c, TierDegraded)
			return
		}
	}
	if to, ok := s.anyMajority(r, cands); ok {
		s.requestPartition(r, part, to, TierMinimal)
	}
}

func (s *Server) requestPartition(r *frameRec, part uint16, to uint32, tier Tier) {
	r.asked[part] = ask{to: to, tier: tier}
	s.send(to, &msg.PartitionRequest{Frame: r.frame, Part: part, Parts: uint16(r.parts)})
	s.stats.PartitionRequests++
}

func (s *Server) hasMajority(r *frameRec, id uint32) bool {
	c := s.clients[id]
	h, ok := r.hashes[id]
	return ok && h == r.majority && c != nil && c.state == StateActive && c.recovering == nil
}

// anyMajority picks the most reliable ACTIVE client with the majority hash
// outside exclude (ties to the smaller id).
func (s *Server) anyMajority(r *frameRec, exclude []uint32) (uint32, bool) {
	best, bestScore, found := uint32(0), -1, false
	for id := range r.hashes {
		if !s.hasMajority(r, id) || slices.Contains(exclude, id) {
			continue
		}
		sc := int(s.rel.Score(id))
		if sc > bestScore || sc == bestScore && id < best {
			best, bestScore, found = id, sc, true
		}
	}
	return best, found
}

// tryAssemble assembles the frame's delta once every partition is in.
func (s *Server) tryAssemble(r *frameRec) {
	if r.stage != filling {
		return
	}
	if r.parts == 0 {
		// Learn the count from what the asked client sent.
		for _, subs := range r.subs {
			for i := range subs {
				if _, ok := s.trusted(r, &subs[i]); ok {
					r.parts = int(subs[i].parts)
				}
			}
		}
		if r.parts == 0 {
			return
		}
	}
	pieces := make([]Delta, 0, r.parts)
	tier := TierNormal
	for p := range r.parts {
		sub, ok := s.firstTrusted(r, uint16(p))
		if !ok {
			return
		}
		d, _ := s.trusted(r, sub)
		pieces = append(pieces, d)
		if a, asked := r.asked[uint16(p)]; asked {
			if a.to != sub.from {
				a.tier = TierMinimal
			}
			tier = max(tier, a.tier)
		} else if primary, _ := r.assign.Primary(p); r.assign.Parts > 0 && primary != sub.from {
			tier = max(tier, TierDegraded)
		}
	}
	whole, err := AssembleDelta(nil, pieces)
	if err != nil {
		s.emitTier(r, TierSkip)
		r.stage = closed
		return
	}
	if prev, ok := s.history.get(r.frame - 1); ok && prev.resultHash != pieces[0].BaseHash {
		// The chain of assembled deltas is broken: verification failed.
		s.emitTier(r, TierSkip)
		r.stage = closed
		return
	}
	s.history.put(r.frame, pieces[0].ResultHash, whole)
	s.assembled = assembled{pending: true, frame: r.frame, delta: whole}
	s.emitTier(r, tier)
	r.stage = closed // closeFrames drops it
}

func (s *Server) emitTier(r *frameRec, t Tier) {
	s.stats.Tiers.Add(t)
	s.emit(Event{Kind: EventTier, Frame: r.frame, Tier: t})
}
