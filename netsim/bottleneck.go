package netsim

import (
	"sync"
	"time"
)

// Bottleneck is one link direction shared by several PacketConns (see
// Config.OutVia): their packets wait in one bandwidth queue and meet one
// set of impairments, as flows do at a real bottleneck. It is safe for
// concurrent use.
type Bottleneck struct {
	mu sync.Mutex
	p  *Path
}

// NewBottleneck returns a shared link impaired by l, seeded with seed.
func NewBottleneck(l Link, seed uint64) *Bottleneck {
	return &Bottleneck{p: NewPath(l, seed, 2)}
}

// Decide is Path.Decide under the bottleneck's lock.
func (b *Bottleneck) Decide(now time.Time, size int) Decision {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.p.Decide(now, size)
}

// SetLink is Path.SetLink under the bottleneck's lock.
func (b *Bottleneck) SetLink(l Link) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.p.SetLink(l)
}

// Stats returns the decisions made for all the PacketConns sharing it.
func (b *Bottleneck) Stats() LinkStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.p.Stats()
}

// decider is a direction's impairment: a Path of its own or a shared
// Bottleneck.
type decider interface {
	Decide(now time.Time, size int) Decision
	SetLink(l Link)
	Stats() LinkStats
}
