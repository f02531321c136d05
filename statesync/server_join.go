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
// merged state against the frame's majority hash, and only then sends it
// to every client waiting for it, the same messages to all of them.

type assembly struct {
	frame     uint32
	providers []uint32
	parts     [][]byte
	got       int
	waiting   []uint32
	decided   bool
	majority  uint32
	deadline  time.Duration
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
	// waits.
	if s.assembly == nil && f%s.cfg.FullCheckInterval == 0 && len(s.list) > 0 && !s.quorum.readOnly {
		s.assembly = &assembly{}
	}
	a := s.assembly
	if a == nil {
		return nil
	}
	providers, ok := s.mostReliable(s.cfg.StateSources, a.waiting)
	if !ok {
		return nil
	}
	s.assembly = nil
	a.frame, a.providers, a.parts = f, providers, make([][]byte, len(providers))
	a.deadline = s.now + s.cfg.SubmitWindow + recoveryTimeouts*s.cfg.RequestTimeout
	s.assemblies = append(s.assemblies, a)
	reqs := make([]msg.Request, len(providers))
	for p, id := range providers {
		reqs[p] = msg.Request{Client: id, Kind: msg.RequestFullPart, Part: uint16(p), Parts: uint16(len(providers))}
	}
	return reqs
}

func (s *Server) tickRequests(f uint32) []msg.Request {
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
		if a.frame != m.Frame || int(m.Parts) != len(a.providers) || a.providers[m.Part] != c.id || a.parts[m.Part] != nil {
			continue
		}
		set, err := s.comp.Decode(nil, m.Encoding, m.Data)
		if err == nil {
			err = checkEntitySet(set)
		}
		if err != nil {
			s.rel.Fail(c.id)
			return err
		}
		a.parts[m.Part] = slices.Clip(slices.Clone(set))
		a.got++
		s.progressAssembly(a)
		return nil
	}
	return ErrUnexpected
}

func (s *Server) verdictForAssemblies(fr *frameRec) {
	for _, a := range slices.Clone(s.assemblies) {
		if a.frame == fr.frame {
			a.decided, a.majority = true, fr.majority
			s.progressAssembly(a)
		}
	}
}

func (s *Server) progressAssembly(a *assembly) {
	if !a.decided || a.got < len(a.providers) {
		return
	}
	s.assemblies = slices.DeleteFunc(s.assemblies, func(x *assembly) bool { return x == a })
	merged, err := MergeEntitySets(nil, a.parts)
	if err != nil || HashBytes(merged) != a.majority {
		s.stats.StatesRejected++
		s.emit(Event{Kind: EventStateRejected, Frame: a.frame})
		for _, id := range a.providers {
			s.rel.Fail(id)
		}
		s.requeue(a.waiting)
		return
	}
	s.snapshots.put(snapshot{frame: a.frame, hash: a.majority, state: merged})
	s.stats.StatesAssembled++
	s.emit(Event{Kind: EventStateAssembled, Frame: a.frame, Bytes: len(merged), Count: len(a.waiting)})
	var out []*msg.FullState
	for p, part := range a.parts {
		enc, data := s.comp.Encode(nil, part)
		out = append(out, &msg.FullState{Frame: a.frame, Hash: a.majority, Part: uint16(p), Parts: uint16(len(a.parts)),
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
		s.requeue(a.waiting)
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
