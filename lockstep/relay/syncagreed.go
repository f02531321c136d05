package relay

// SyncAgreed: every active player reported the same state hash for
// Tick. Replays record it, so a re-simulation can be checked against
// what the players agreed on.
type SyncAgreed struct {
	Tick uint64
	Hash uint64
}

func (SyncAgreed) isEvent() {}
