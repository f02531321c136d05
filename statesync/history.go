package statesync

// deltaHistory keeps the assembled deltas of the last limit frames (the
// seed's deltaFrames: 60), for verification of the chain and for anyone
// who missed a Tick.
type deltaHistory struct {
	limit   int
	entries []deltaEntry
	bytes   int
}

type deltaEntry struct {
	frame      uint32
	resultHash uint32
	delta      []byte
}

func (h *deltaHistory) put(frame, resultHash uint32, delta []byte) {
	h.entries = append(h.entries, deltaEntry{frame, resultHash, delta})
	h.bytes += len(delta)
	for len(h.entries) > 0 && h.entries[0].frame+uint32(h.limit) <= frame {
		h.bytes -= len(h.entries[0].delta)
		h.entries[0] = deltaEntry{}
		h.entries = h.entries[1:]
	}
}

// snapshotHistory keeps the last limit verified full states (the seed's
// fullSnapshots: 3).
type snapshotHistory struct {
	limit   int
	entries []snapshot
	bytes   int
}

type snapshot struct {
	frame uint32
	hash  uint32
	state []byte // entity set
}

func (h *snapshotHistory) put(s snapshot) {
	h.entries = append(h.entries, s)
	h.bytes += len(s.state)
	for len(h.entries) > h.limit {
		h.bytes -= len(h.entries[0].state)
		h.entries[0] = snapshot{}
		h.entries = h.entries[1:]
	}
}
