package statesync

import (
	"slices"
	"time"

	"github.com/tickwire/tickwire/statesync/msg"
)

// Full-state assembly, for late joiners, snapshot fallbacks and the
// periodic full verification: at a Tick the StateSources most reliable
// ACTIVE clients each send partition p of n of the state after that frame
// (entities with id mod n == p); the server merges them, checks the
// merged state against the frame's majority hash and agreed digest, and
// only then sends it to every client waiting for it, the same messages to
// all of them.
//
// When a merged state fails, nobody can tell which part was wrong, so
// nobody is blamed; the next assembly asks each of its sources for the
// whole state instead (the same sources where they still can), checks
// each on its own, and blames exactly the sources whose state fails: a bad
// part blames its sender only.

type assembly struct {
	frame     uint32
	providers []uint32
	parts     [][]byte
	got       int
	waiting   []uint32
	decided   bool
	majority  uint32
	digest    msg.Digest
	agreed    bool
	deadline  time.Duration
	whole     bool // every provider sends the whole state
	checked   []bool
	delivered bool
}

// needState queues a SYNCING client for the next assembly.
func (s *Server) needState(c *client) {
	c.waiting, c.syncedFrom = true, 0
	if s.assembly == nil {
		s.assembly = &assembly{}
	}
	s.assembly.waiting = append(s.assembly.waiting, c.id)
}

// assemblyRequests fixes the pending assembly (or a periodic check) at
// frame f and returns its Tick requests.
func (s *Server) assemblyRequests(f uint32) []msg.Request {
	// Read-only mode still syncs (re)joining clients: that is how the
	// quorum comes back after a split heals. Only the periodic check
	// (and its retry after a failure) waits.
	if s.assembly == nil && (f%s.cfg.FullCheckInterval == 0 || s.wholeFrom != nil) && len(s.list) > 0 && !s.quorum.readOnly {
		s.assembly = &assembly{}
	}
	a := s.assembly
	if a == nil {
		return nil
	}
	providers, ok := s.mostReliable(s.cfg.StateSources, a.waiting)
	if s.wholeFrom != nil {
		// The last merged state failed: its sources that are still
		// eligible each send the whole state, so the liar is found.
		eligible, _ := s.mostReliable(len(s.list), a.waiting)
		a.whole = true
		if again := slices.DeleteFunc(slices.Clone(s.wholeFrom), func(id uint32) bool { return !slices.Contains(eligible, id) }); len(again) > 0 {
			providers, ok = again, true
		}
	}
	if !ok {
		return nil
	}
	s.assembly, s.wholeFrom = nil, nil
	a.frame, a.providers, a.parts = f, providers, make([][]byte, len(providers))
	a.checked = make([]bool, len(providers))
	a.deadline = s.now + s.cfg.SubmitWindow + recoveryTimeouts*s.cfg.RequestTimeout
	s.assemblies = append(s.assemblies, a)
	reqs := make([]msg.Request, len(providers))
	for p, id := range providers {
		reqs[p] = msg.Request{Client: id, Kind: msg.RequestFullPart, Part: uint16(p), Parts: uint16(len(providers))}
		if a.whole {
			reqs[p].Part, reqs[p].Parts = 0, 1
		}
	}
	return reqs
}

// slot is where provider id's data goes in a, or -1.
func (a *assembly) slot(id uint32, part, parts uint16) int {
	i := slices.Index(a.providers, id)
	switch {
	case i < 0 || a.parts[i] != nil:
		return -1
	case a.whole && part == 0 && parts == 1:
		return i
	case !a.whole && int(parts) == len(a.providers) && int(part) == i:
		return i
	}
	return -1
}

func (s *Server) tickRequests(f uint32) []msg.Request {
	s.pruneSuspects()
	s.expireRecoveries()
	s.expireAssemblies()
	reqs := s.recoveryRequests(f)
	for _, id := range s.resyncs {
		if c := s.clients[id]; c != nil && c.state == StateSyncing {
			reqs = append(reqs, msg.Request{Client: id, Kind: msg.RequestResync})
		}
	}
	s.resyncs = s.resyncs[:0]
	return append(reqs, s.assemblyRequests(f)...)
}

func (s *Server) onEntityData(c *client, m *msg.EntityData) error {
	if m.Kind == msg.EntitiesBuckets {
		return s.onCorrectionData(c, m)
	}
	for _, a := range s.assemblies {
		i := a.slot(c.id, m.Part, m.Parts)
		if a.frame != m.Frame || i < 0 {
			continue
		}
		set, err := s.comp.Decode(nil, m.Encoding, m.Data)
		if err == nil {
			err = checkEntitySet(set)
		}
		if err != nil {
			s.rel.Fail(c.id)
			s.offend(c, OffenceBadState)
			return err
		}
		a.parts[i] = slices.Clip(slices.Clone(set))
		a.got++
		s.progressAssembly(a)
		return nil
	}
	return ErrUnexpected
}

func (s *Server) verdictForAssemblies(fr *frameRec) {
	for _, a := range slices.Clone(s.assemblies) {
		if a.frame == fr.frame {
			a.decided, a.majority, a.agreed, a.digest = true, fr.majority, fr.agreed, fr.digest.digest
			s.progressAssembly(a)
		}
	}
}

func (s *Server) progressAssembly(a *assembly) {
	if a.whole {
		s.progressWhole(a)
		return
	}
	if !a.decided || a.got < len(a.providers) {
		return
	}
	s.assemblies = slices.DeleteFunc(s.assemblies, func(x *assembly) bool { return x == a })
	merged, err := MergeEntitySets(nil, a.parts)
	if err != nil || !a.verifies(merged) {
		s.rejectState(a)
		if a.agreed {
			// Ask the same sources again, each for the whole state.
			s.wholeFrom = a.providers
		}
		return
	}
	s.deliverState(a, merged, a.parts)
}

// progressWhole checks each whole state as it comes: the first that
// verifies is sent; each that fails blames its sender. The assembly waits
// for every source, so that every liar among them is found.
func (s *Server) progressWhole(a *assembly) {
	if !a.decided {
		return
	}
	for i, set := range a.parts {
		if set == nil || a.checked[i] {
			continue
		}
		a.checked[i] = true
		switch {
		case a.verifies(set):
			if !a.delivered {
				a.delivered = true
				s.deliverState(a, set, [][]byte{set})
			}
		case a.agreed:
			if c := s.clients[a.providers[i]]; c != nil {
				s.rel.Fail(c.id)
				s.offend(c, OffenceBadState)
				s.distrust(c.id)
			}
		}
	}
	if a.got == len(a.providers) {
		s.assemblies = slices.DeleteFunc(s.assemblies, func(x *assembly) bool { return x == a })
		if !a.delivered {
			s.rejectState(a)
		}
	}
}

// verifies reports whether a state is the majority's: its hash, and the
// digest more than half of the frame's voters agreed on.
func (a *assembly) verifies(set []byte) bool {
	return a.agreed && HashBytes(set) == a.majority && DigestBytes(set) == a.digest
}

func (s *Server) rejectState(a *assembly) {
	s.stats.StatesRejected++
	s.emit(Event{Kind: EventStateRejected, Frame: a.frame})
	s.requeue(a.waiting)
}

// deliverState keeps a verified state and sends it, in the given parts, to
// every client waiting for it.
func (s *Server) deliverState(a *assembly, merged []byte, parts [][]byte) {
	s.snapshots.put(snapshot{frame: a.frame, hash: a.majority, state: merged})
	s.stats.StatesAssembled++
	s.emit(Event{Kind: EventStateAssembled, Frame: a.frame, Bytes: len(merged), Count: len(a.waiting)})
	var out []*msg.FullState
	for p, part := range parts {
		enc, data := s.comp.Encode(nil, part)
		out = append(out, &msg.FullState{Frame: a.frame, Hash: a.majority, Digest: a.digest, Part: uint16(p), Parts: uint16(len(parts)),
			Encoding: enc, Data: slices.Clip(data)})
	}
	for _, id := range a.waiting {
		c := s.clients[id]
		if c == nil || c.state != StateSyncing {
			continue
		}
		c.waiting, c.syncedFrom = false, a.frame
		for _, m := range out {
			s.send(id, m)
			s.stats.FullStateBytesOut += uint64(len(m.Data))
		}
	}
}

func (s *Server) requeue(ids []uint32) {
	for _, id := range ids {
		if c := s.clients[id]; c != nil && c.state == StateSyncing {
			s.needState(c)
		}
	}
}

func (s *Server) expireAssemblies() {
	for _, a := range slices.Clone(s.assemblies) {
		if s.now <= a.deadline {
			continue
		}
		s.assemblies = slices.DeleteFunc(s.assemblies, func(x *assembly) bool { return x == a })
		for p, id := range a.providers {
			if a.parts[p] == nil {
				s.rel.Fail(id)
			}
		}
		if !a.delivered {
			s.requeue(a.waiting)
		}
	}
	// A client that got its state but never agreed is sent it again.
	for _, c := range s.clients {
		if c.state == StateSyncing && !c.waiting && s.now-c.lateJoinAt > 2*recoveryTimeouts*s.cfg.RequestTimeout {
			c.lateJoinAt = s.now
			s.needState(c)
		}
	}
}

// promote makes a synced client ACTIVE: its hash agreed with the majority
// at a frame after its full state.
func (s *Server) promote(c *client, frame uint32) {
	if r := c.recovering; r != nil {
		// A snapshot fallback completes a recovery too.
		s.recovered(c, frame)
	}
	c.state = StateActive
	i, _ := slices.BinarySearch(s.list, c.id)
	s.list = slices.Insert(slices.Clone(s.list), i, c.id)
	s.listDirty = true
	s.stats.LateJoins++
	s.emit(Event{Kind: EventPromoted, Client: c.id, Frame: frame, Duration: int64(s.now - c.lateJoinAt)})
}

// forget removes a departing client from the recoveries and assemblies
// it is part of: a provider's checkpoint or assembly fails over to
// others, and a waiting client is taken off the queue (a rejoiner then
// gets its full state once).
func (s *Server) forget(id uint32) {
	s.resyncs = slices.DeleteFunc(s.resyncs, func(x uint32) bool { return x == id })
	if a := s.assembly; a != nil {
		a.waiting = slices.DeleteFunc(a.waiting, func(x uint32) bool { return x == id })
	}
	for _, a := range slices.Clone(s.assemblies) {
		a.waiting = slices.DeleteFunc(a.waiting, func(x uint32) bool { return x == id })
		if slices.Contains(a.providers, id) {
			s.assemblies = slices.DeleteFunc(s.assemblies, func(x *assembly) bool { return x == a })
			s.requeue(a.waiting)
		}
	}
	for _, cp := range slices.Clone(s.recoveries) {
		if cp.provider == id {
			s.failCheckpoint(cp)
		}
	}
}
