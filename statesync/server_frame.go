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
	readOnly    bool
	// parts and assign are the server's own: the partition count it
	// published in the Tick and the assignment drawn from it.
	parts  int
	assign Assignment
	// hashes are the votes; digests the STATE_DIGESTs of a digest frame.
	hashes     map[uint32]uint32
	digestOn   bool
	digests    map[uint32]digestVote
	subs       map[uint16][]partSub // from the primary or an asked sender only
	majority   uint32
	decided    bool
	agreed     bool // more than half of the voters reported one digest
	digest     digestVote
	baseHash   uint32 // the majority hash of the frame before, if known
	knownBase  bool
	asked      map[uint16]ask
	askedAgain bool
	window     time.Duration // deadline = sentAt + window
}

type digestVote struct {
	entities uint32
	digest   msg.Digest
}

// partSub is one partition as received: validated and decompressed once,
// on arrival.
type partSub struct {
	from  uint32
	at    time.Duration
	ok    bool // decoded, parsed, of this frame and partition
	delta Delta
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
	s.publishList(true)
	if s.next%ReliabilityInterval == 0 {
		if u, ok := s.rel.Publish(); ok {
			s.broadcast(&u)
		}
	}
	f := s.next
	parts := NumPartitions(int(s.entities), len(s.list))
	t := &msg.Tick{Frame: f, ReliabilityVersion: s.rel.Version(), ClientListVersion: s.listVersion,
		ReadOnly: s.quorum.readOnly, Parts: uint16(parts)}
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
	// A digest frame: the first, one a second, and every checkpoint of a
	// recovery or a full state, whose data is checked against the digest.
	t.Digest = f == 1 || f%ReliabilityInterval == 0 || slices.ContainsFunc(t.Requests, func(q msg.Request) bool {
		return q.Kind != msg.RequestResync
	})
	s.broadcast(t)
	s.stats.Frames++
	scores := s.rel.Table().Scores
	r := &frameRec{
		frame: f, sentAt: s.now, list: s.list, listVersion: s.listVersion, parts: parts,
		readOnly: s.quorum.readOnly, hashes: make(map[uint32]uint32, len(s.list)),
		digestOn: t.Digest, window: s.cfg.SubmitWindow,
	}
	if !r.readOnly {
		r.assign = s.assigner.Assign(AssignInput{Frame: f, ListVersion: s.listVersion, Clients: s.list,
			Score: func(c uint32) uint16 { return ScoreIn(scores, c) }, Parts: parts,
			Redundancy: s.churn.redundancy(s.now, len(s.list))})
	}
	if t.Digest {
		r.digests = make(map[uint32]digestVote)
	}
	s.frames = append(s.frames, r)
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

func (s *Server) onDigest(c *client, m *msg.StateDigest) error {
	r := s.frame(m.Frame)
	if r == nil || r.stage != collecting || !r.digestOn {
		return fmt.Errorf("%w: digest for frame %d", ErrFrame, m.Frame)
	}
	if _, dup := r.digests[c.id]; !dup {
		r.digests[c.id] = digestVote{entities: m.Entities, digest: m.Digest}
	}
	return nil
}

// mayContribute reports whether id may send partition part of the frame:
// its primary, or the sender the server asked for it.
func (r *frameRec) mayContribute(id uint32, part uint16) bool {
	if int(part) >= r.parts {
		return false
	}
	if primary, ok := r.assign.Primary(int(part)); ok && primary == id {
		return true
	}
	a, asked := r.asked[part]
	return asked && a.to == id
}

func (s *Server) onPartition(c *client, m *msg.PartitionData) error {
	r := s.frame(m.Frame)
	if r == nil || r.stage == closed || r.readOnly {
		return fmt.Errorf("%w: partition for frame %d", ErrFrame, m.Frame)
	}
	if m.ListVersion != r.listVersion && r.asked[m.Part].to != c.id {
		return fmt.Errorf("%w: %d, frame %d was assigned with %d", ErrVersion, m.ListVersion, m.Frame, r.listVersion)
	}
	if !r.mayContribute(c.id, m.Part) {
		// A stranger's partition: dropped, and held against the
		// stranger alone.
		s.stats.StrangerPartitions++
		s.offend(c, OffenceStranger)
		return fmt.Errorf("%w: client %d was not assigned partition %d of frame %d", ErrStranger, c.id, m.Part, m.Frame)
	}
	for _, sub := range r.subs[m.Part] {
		if sub.from == c.id {
			return fmt.Errorf("%w: partition %d of frame %d twice", ErrUnexpected, m.Part, m.Frame)
		}
	}
	if r.subs == nil {
		r.subs = make(map[uint16][]partSub)
	}
	s.stats.PartitionBytesIn += uint64(len(m.Data))
	sub := s.checkPartition(r, c.id, m)
	r.subs[m.Part] = append(r.subs[m.Part], sub)
	if !sub.ok {
		s.rejectPartition(r, c, m.Part)
		if r.stage == filling {
			s.askAgain(r, m.Part, c.id)
		}
		return fmt.Errorf("%w: partition %d of frame %d", ErrMalformed, m.Part, m.Frame)
	}
	if r.stage == filling {
		s.tryAssemble(r)
	}
	return nil
}

// checkPartition validates and decompresses a partition once: the count
// must be the server's, the data a delta of this frame holding only this
// partition's entities, decompressing to at most MaxPartitionBytes.
func (s *Server) checkPartition(r *frameRec, from uint32, m *msg.PartitionData) partSub {
	sub := partSub{from: from, at: s.now}
	if int(m.Parts) != r.parts {
		return sub
	}
	raw, err := s.comp.DecodePartition(m.Encoding, m.Data)
	if err != nil {
		return sub
	}
	s.stats.PartitionBytesDecoded += uint64(len(raw))
	d, err := ParseDelta(slices.Clone(raw))
	if err != nil || d.Frame != r.frame || !inPartition(&d, m.Part, m.Parts) {
		return sub
	}
	sub.ok, sub.delta = true, d
	return sub
}

// inPartition reports whether every entity of d belongs to partition part
// of parts.
func inPartition(d *Delta, part, parts uint16) bool {
	rd := ReadEntities(d.Created)
	for e, ok := rd.Next(); ok; e, ok = rd.Next() {
		if e.ID%uint32(parts) != uint32(part) {
			return false
		}
	}
	for _, id := range d.Deleted {
		if id%uint32(parts) != uint32(part) {
			return false
		}
	}
	return rd.Err() == nil
}

// rejectPartition blames the sender of a partition that failed the checks:
// evidence against it, and it alone.
func (s *Server) rejectPartition(r *frameRec, c *client, part uint16) {
	s.stats.PartitionsRejected++
	s.rel.Fail(c.id)
	s.offend(c, OffenceBadPartition)
	s.emit(Event{Kind: EventPartitionRejected, Client: c.id, Frame: r.frame, Part: part})
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

// majority is the hash more than half of the room's ACTIVE clients
// reported, if any. Every ACTIVE client counts, whether its hash arrived in
// the window or not: a client that is late or silent is a vote for no
// hash, never a smaller room, so a coalition cannot win by outlasting
// honest clients with a longer round trip. A plurality is not enough
// either, so no tie is ever broken. votes is how many ACTIVE clients did
// report.
func (s *Server) majority(r *frameRec) (hash uint32, count, voters, votes int, ok bool) {
	counts := make(map[uint32]int)
	for id, h := range r.hashes {
		if c := s.clients[id]; c != nil && c.state == StateActive {
			counts[h]++
			votes++
		}
	}
	for _, c := range s.clients {
		if c.state == StateActive {
			voters++
		}
	}
	for h, n := range counts {
		if n*2 > voters {
			return h, n, voters, votes, true
		}
	}
	return 0, 0, voters, votes, false
}

// agreeDigest finds the digest more than half of the voters reported along
// with the majority hash.
func (s *Server) agreeDigest(r *frameRec, voters int) {
	if !r.digestOn {
		return
	}
	counts := make(map[digestVote]int)
	for id, d := range r.digests {
		if h, ok := r.hashes[id]; ok && h == r.majority && s.clients[id] != nil && s.clients[id].state == StateActive {
			counts[d]++
		}
	}
	for d, n := range counts {
		if n*2 > voters {
			r.agreed, r.digest = true, d
			s.entities = d.entities
			return
		}
	}
}

func (s *Server) decide(r *frameRec) {
	hash, count, voters, votes, ok := s.majority(r)
	if !ok {
		r.stage = closed
		if votes > 0 {
			s.stats.NoMajority++
		}
		s.emitTier(r, TierSkip)
		s.verdictForCheckpoints(r)
		s.verdictForAssemblies(r)
		return
	}
	r.majority, r.decided = hash, true
	s.majorities[r.frame%uint32(len(s.majorities))] = frameHash{r.frame, hash}
	if r.frame >= s.agreed.frame {
		s.agreed = frameHash{r.frame, hash}
	}
	if prev := s.majorities[(r.frame-1)%uint32(len(s.majorities))]; prev.frame == r.frame-1 && r.frame > 1 {
		r.baseHash, r.knownBase = prev.hash, true
	}
	s.agreeDigest(r, voters)
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

// good reports whether a partition can go into the frame's delta: it
// passed the checks on arrival, its sender voted the majority hash, and
// its header chains the majority of the frame before to this one's.
func (r *frameRec) good(sub *partSub) bool {
	if h, ok := r.hashes[sub.from]; !ok || h != r.majority || !sub.ok {
		return false
	}
	return sub.delta.ResultHash == r.majority && (!r.knownBase || sub.delta.BaseHash == r.baseHash)
}

// fillPartitions judges the partitions of the window, one by one against
// their own sender, and asks for the missing ones.
func (s *Server) fillPartitions(r *frameRec) {
	r.stage = filling
	r.window += s.cfg.RequestTimeout
	r.asked = make(map[uint16]ask)
	for p := range r.parts {
		part := uint16(p)
		primary, _ := r.assign.Primary(p)
		if sub, ok := r.found(part); ok {
			s.rel.Succeed(primary, sub.at-r.sentAt)
			continue
		}
		if c := s.clients[primary]; c != nil {
			sub := r.subFrom(part, primary)
			switch {
			case sub != nil && !sub.ok:
				// Rejected, and blamed, on arrival.
			case sub != nil && r.hashes[primary] == r.majority:
				// Well-formed, from a client that voted the majority,
				// but not the majority's partition: it lied.
				s.rejectPartition(r, c, part)
			default:
				s.rel.Fail(primary) // missing, or from a desynced client
			}
		}
		s.askFallback(r, part, nil)
	}
	s.tryAssemble(r)
}

// subFrom returns what id sent for part, if anything.
func (r *frameRec) subFrom(part uint16, id uint32) *partSub {
	for i, sub := range r.subs[part] {
		if sub.from == id {
			return &r.subs[part][i]
		}
	}
	return nil
}

// found returns the partition's first good submission.
func (r *frameRec) found(part uint16) (*partSub, bool) {
	subs := r.subs[part]
	for i := range subs {
		if r.good(&subs[i]) {
			return &subs[i], true
		}
	}
	return nil, false
}

// askFallback asks for a missing partition: the first backup candidate of
// the assignment whose hash is the majority's (tier 2), else the most
// reliable ACTIVE client with the majority hash (tier 3); never one in
// tried. One request per partition at a time, so the fan-out of a frame
// is at most its partition count.
func (s *Server) askFallback(r *frameRec, part uint16, tried []uint32) {
	cands := r.assign.Candidates(int(part))
	for _, c := range cands[1:] {
		if c != cands[0] && !slices.Contains(tried, c) && s.hasMajority(r, c) {
			s.requestPartition(r, part, c, TierDegraded)
			return
		}
	}
	if to, ok := s.anyMajority(r, append(slices.Clone(cands), tried...)); ok {
		s.requestPartition(r, part, to, TierMinimal)
	}
}

// askAgain replaces an asked sender whose answer failed the checks; the
// first time in a frame, the frame waits one more request timeout for it.
func (s *Server) askAgain(r *frameRec, part uint16, failed uint32) {
	if a, ok := r.asked[part]; ok && a.to == failed {
		if !r.askedAgain {
			r.askedAgain = true
			r.window += s.cfg.RequestTimeout
		}
		s.askFallback(r, part, []uint32{failed})
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
	return ok && h == r.majority && c != nil && c.state == StateActive && c.recovering == nil && !s.suspect(id)
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
	pieces := make([]Delta, 0, r.parts)
	tier := TierNormal
	for p := range r.parts {
		sub, ok := r.found(uint16(p))
		if !ok {
			return
		}
		pieces = append(pieces, sub.delta)
		if primary, _ := r.assign.Primary(p); primary != sub.from {
			tier = max(tier, r.asked[uint16(p)].tier)
		}
	}
	whole, err := AssembleDelta(nil, pieces)
	if err != nil {
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

// Agreed returns the latest frame whose state hash a strict majority of
// the room's ACTIVE clients reported, and that hash; ok is false until a
// frame had one.
func (s *Server) Agreed() (frame, hash uint32, ok bool) {
	return s.agreed.frame, s.agreed.hash, s.agreed.frame > 0
}
