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
	if s.cfg.Interest.On() {
		s.views = s.game.Entities(s.views[:0])
	}
	for _, c := range s.clients {
		*m = SnapshotMessage{
			ServerTick: t, ServerTimeUs: s.timeUs(),
			LateTick: c.lateTick, ClampedTick: c.clampTick, InteractedTick: c.interacted,
			Acked: m.Acked[:0], Events: s.tickEvs, Header: header,
		}
		for _, o := range s.clients {
			m.Acked = append(m.Acked, AckedInput{Player: o.id, Sequence: o.appliedSeq})
		}
		base, cur := s.baseline(c, t), recs
		var d *delta
		if s.cfg.Interest.On() {
			cur = s.interesting(c, t, recs)
			if base != nil {
				d = s.interestDelta(c, base, cur)
			}
		} else if base != nil {
			d = s.delta(base, recs)
		}
		if d == nil {
			m.Records = cur
			c.lastFull = t
			s.stats.FullSnapshots++
		} else {
			m.BaselineTick = base.tick
			m.Removed, m.Records = d.removed, d.changed
			s.stats.DeltaSnapshots++
		}
		n := len(s.arena)
		s.emit(c.id, LaneUnreliable, m)
		s.stats.SnapshotBytes += uint64(len(s.arena) - n)
		if s.cfg.Interest.On() {
			s.measureWorld(m, base, recs)
		}
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

// interesting returns the records of recs (the snapshot of tick t) in
// client c's interest, and remembers that set as what c was sent at t.
func (s *Server) interesting(c *client, t uint64, recs []Record) []Record {
	self, _ := s.game.PlayerEntity(c.id)
	var next []EntityID
	next, s.candidates = s.cfg.Interest.interest(c.id, self, s.views, c.interest, c.spare, s.candidates)
	c.interest, c.spare = next, c.interest
	if c.sent == nil {
		c.sent = make([]sentSet, len(s.history))
	}
	k := &c.sent[(t/uint64(s.cfg.SnapshotEvery))%uint64(len(c.sent))]
	k.tick, k.ids = t, append(k.ids[:0], next...)
	s.filtered = filterRecords(recs, next, s.filtered[:0])
	return s.filtered
}

// interestDelta is the difference of cur (client c's records now) from
// what c was sent in the baseline base, or nil if that is not known.
func (s *Server) interestDelta(c *client, base *historic, cur []Record) *delta {
	k := &c.sent[(base.tick/uint64(s.cfg.SnapshotEvery))%uint64(len(c.sent))]
	if k.tick != base.tick {
		return nil
	}
	s.baseRecs = filterRecords(base.recs, k.ids, s.baseRecs[:0])
	d := &s.own
	d.removed, d.changed, s.patches = diffRecords(s.baseRecs, cur, d.removed[:0], d.changed[:0], s.patches)
	return d
}

// measureWorld counts what m would have taken without interest
// management: every record, as a delta against the same baseline.
func (s *Server) measureWorld(m *SnapshotMessage, base *historic, recs []Record) {
	if m.BaselineTick == 0 {
		m.Records, m.Removed = recs, nil
	} else {
		d := s.delta(base, recs)
		m.Removed, m.Records = d.removed, d.changed
	}
	var err error
	if s.world, err = m.Append(s.world[:0]); err == nil {
		s.stats.SnapshotBytesWorld += uint64(len(s.world))
	}
}

// sentSet is the set of entities a client was sent in the snapshot of a
// tick, under interest management.
type sentSet struct {
	tick uint64
	ids  []EntityID
}
