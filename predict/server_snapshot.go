package predict

// snapshot takes the state after tick t, keeps it as a baseline and sends
// each client a delta against the newest snapshot it acknowledged, or a
// full snapshot when it holds none of the kept ones or one is due.
func (s *Server) snapshot(t uint64) {
	h := s.historic(t)
	h.tick = t
	h.snap = s.game.Snapshot(h.snap[:0])
	header, recs, err := s.game.Split(h.snap, h.recs[:0])
	if err != nil {
		panic("predict: the game cannot split its own snapshot: " + err.Error())
	}
	h.recs = recs
	m := &s.scratch.snap
	for _, c := range s.clients {
		*m = SnapshotMessage{
			ServerTick: t, ServerTimeUs: s.timeUs(),
			LateTick: c.lateTick, ClampedTick: c.clampTick, InteractedTick: c.interacted,
			Acked: m.Acked[:0], Events: s.tickEvs, Header: header,
		}
		for _, o := range s.clients {
			m.Acked = append(m.Acked, AckedInput{Player: o.id, Sequence: o.appliedSeq})
		}
		base := s.baseline(c, t)
		if base == nil {
			m.Records = recs
			c.lastFull = t
			s.stats.FullSnapshots++
		} else {
			m.BaselineTick = base.tick
			d := s.delta(base, recs)
			m.Removed, m.Records = d.removed, d.changed
			s.stats.DeltaSnapshots++
		}
		n := len(s.arena)
		s.emit(c.id, LaneUnreliable, m)
		s.stats.SnapshotBytes += uint64(len(s.arena) - n)
		m.Records, m.Removed = nil, nil // they belong to the history and the deltas
	}
	for i := range s.deltas {
		s.deltas[i].base = 0
	}
	s.patches = s.patches[:0]
}

// delta is the difference of the current records from a baseline's.
type delta struct {
	base    uint64
	removed []EntityID
	changed []Record
}

// delta returns the difference of recs from base, computed once per tick
// and baseline: clients that acknowledged the same snapshot share it.
func (s *Server) delta(base *historic, recs []Record) *delta {
	for i := range s.deltas {
		if s.deltas[i].base == base.tick {
			return &s.deltas[i]
		}
	}
	i := 0
	for i < len(s.deltas) && s.deltas[i].base != 0 {
		i++
	}
	if i == len(s.deltas) {
		s.deltas = append(s.deltas, delta{})
	}
	d := &s.deltas[i]
	d.base = base.tick
	d.removed, d.changed, s.patches = diffRecords(base.recs, recs, d.removed[:0], d.changed[:0], s.patches)
	return d
}

// baseline returns the kept snapshot client c acknowledged, or nil when a
// full snapshot is due.
func (s *Server) baseline(c *client, t uint64) *historic {
	if c.ackedSnap == 0 || t-c.lastFull >= uint64(s.cfg.FullEvery) {
		return nil
	}
	h := s.historic(c.ackedSnap)
	if h.tick != c.ackedSnap {
		return nil
	}
	return h
}

// historic is the slot of the snapshot of tick t: the ring is indexed by
// snapshot number (as a client's is), so every slot is used whatever the
// snapshot interval.
func (s *Server) historic(t uint64) *historic {
	return &s.history[(t/uint64(s.cfg.SnapshotEvery))%uint64(len(s.history))]
}
