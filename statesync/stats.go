package statesync

// Stats are the server's counters since it started.
type Stats struct {
	Frames             uint64
	Verdicts           uint64
	Agreeing, Voters   uint64 // summed over verdicts: clients with the majority hash, ACTIVE clients (voters, late or not)
	Tiers              TierCounts
	PartitionBytesIn   uint64
	PartitionRequests  uint64
	PartitionsRejected uint64
	// StrangerPartitions: partitions from clients neither assigned nor
	// asked, dropped on arrival.
	StrangerPartitions uint64
	// PartitionBytesDecoded: partition bytes after decompression, each
	// partition decoded once.
	PartitionBytesDecoded uint64
	// NoMajority: frames some client voted on whose hashes had no hash
	// in common for more than half of the room's ACTIVE clients (late
	// and silent ones count); nothing is judged or corrected on them.
	NoMajority uint64
	Offences   OffenceCounts
	// Removed: clients removed for desyncing too often.
	Removed           uint64
	OpenFrames        int
	Desyncs           uint64
	Corrections       uint64
	Recovered         uint64
	SnapshotFallbacks uint64
	// SilentProviders: recovery providers that did not send the leaves
	// or entities they were asked for before the recovery's deadline;
	// each is charged (its reliability score falls) and the recovery
	// falls back to a full state.
	SilentProviders   uint64
	StatesAssembled   uint64
	StatesRejected    uint64
	FullStateBytesOut uint64
	LateJoins         uint64
}

// Score is a client's live reliability score.
func (s *Server) Score(id uint32) uint16 { return s.rel.Score(id) }

// Stats returns the counters.
func (s *Server) Stats() Stats { return s.stats }

// RetainedBytes is the memory the room holds besides per-client records
// and the frames being collected: the delta history (60 frames) and the
// verified snapshots (3). It is bounded by those limits whatever clients
// send.
func (s *Server) RetainedBytes() int {
	n := s.history.bytes + s.snapshots.bytes
	for _, r := range s.frames {
		for _, subs := range r.subs {
			for _, sub := range subs {
				n += len(sub.delta.Created) + 4*len(sub.delta.Deleted)
			}
		}
	}
	return n
}
