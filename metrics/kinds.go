package metrics

import (
	"errors"
	"sync/atomic"
)

// Kind is one label of a by-kind counter: the sentinel error it counts
// and its name on /metrics.
type Kind struct {
	Name string
	Err  error // nil: everything no earlier kind matches
}

// ByKind counts errors by the first of its kinds each one matches with
// errors.Is; a kind whose Err is nil catches the rest (the last kind
// catches everything no kind matches in any case). Safe for concurrent
// use; build one with NewByKind.
type ByKind struct {
	kinds  []Kind
	counts []atomic.Uint64
}

// NewByKind returns a counter over kinds (the slice is kept and must not
// be modified).
func NewByKind(kinds []Kind) *ByKind {
	return &ByKind{kinds: kinds, counts: make([]atomic.Uint64, len(kinds))}
}

// Count counts err under the first kind it matches.
func (b *ByKind) Count(err error) {
	if len(b.kinds) == 0 {
		return
	}
	i := len(b.kinds) - 1
	for j, k := range b.kinds {
		if k.Err == nil || errors.Is(err, k.Err) {
			i = j
			break
		}
	}
	b.counts[i].Add(1)
}

// Snapshot returns the counts by kind name, kinds never seen included.
func (b *ByKind) Snapshot() map[string]uint64 {
	out := make(map[string]uint64, len(b.kinds))
	for i, k := range b.kinds {
		out[k.Name] = b.counts[i].Load()
	}
	return out
}
