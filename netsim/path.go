package netsim

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"time"
)

// Cause says why a packet was dropped.
type Cause uint8

// The drop causes of Path.Decide. The PacketConn shell adds Overflow and
// Failed in its LinkStats.
const (
	Kept      Cause = iota // not dropped
	DropLoss               // independent loss (Link.Loss)
	DropBurst              // Gilbert–Elliott loss (Link.Burst)
	DropQueue              // tail drop at a full bandwidth queue
)

func (c Cause) String() string {
	switch c {
	case Kept:
		return "kept"
	case DropLoss:
		return "loss"
	case DropBurst:
		return "burst"
	case DropQueue:
		return "queue"
	}
	return "unknown"
}

// Decision is the fate of one packet on a Path.
type Decision struct {
	// Drop is Kept when the packet is delivered, else why it was dropped.
	// The other fields are set only for kept packets.
	Drop Cause
	// At is when the packet arrives.
	At time.Time
	// DupAt is when its duplicate arrives; the zero time means none.
	DupAt time.Time
	// Reordered reports that the packet was held back by ReorderDelay.
	Reordered bool
	// CorruptBit is the index of the flipped bit (bit i is byte i/8,
	// mask 1<<(i%8)), or -1 when the packet is intact.
	CorruptBit int
}

// Path is the impairment model of one direction: pure logic with no
// goroutines, timers or clock. Decide is given each packet's size and the
// time it is sent and returns its fate; a given Link, seed, stream and
// sequence of calls always yields the same decisions.
//
// Each impairment draws from its own PCG generator, so enabling one (say
// Duplicate) does not change the decisions of another (which packets are
// lost). A Path is not safe for concurrent use.
type Path struct {
	link Link

	lossRNG, burstRNG, corruptRNG, jitterRNG, reorderRNG, dupRNG *rand.Rand

	bad       bool      // Gilbert–Elliott state
	busyUntil time.Time // when the bandwidth queue drains
	lastAt    time.Time // latest arrival of a packet not held back
	stats     LinkStats
}

// NewPath returns the model of a link seeded with seed. Different streams
// with one seed give independent decisions (a PacketConn uses stream 0 for
// Out and 1 for In).
func NewPath(link Link, seed, stream uint64) *Path {
	p := &Path{link: link}
	rngs := []**rand.Rand{&p.lossRNG, &p.burstRNG, &p.corruptRNG, &p.jitterRNG, &p.reorderRNG, &p.dupRNG}
	for i, r := range rngs {
		s := splitmix(seed ^ splitmix(stream<<8|uint64(i)))
		*r = rand.New(rand.NewPCG(s, splitmix(s)))
	}
	return p
}

// SetLink changes the impairment from the next packet on, keeping the
// random generators, the Gilbert–Elliott state and the bandwidth queue.
func (p *Path) SetLink(l Link) { p.link = l }

// Link returns the current impairment.
func (p *Path) Link() Link { return p.link }

// Stats returns the counters of the decisions made so far (Delivered,
// Overflow and Failed are left to the caller).
func (p *Path) Stats() LinkStats { return p.stats }

// Decide returns the fate of a packet of size bytes sent at now. The
// packet first waits in the bandwidth queue (or is tail-dropped), then
// meets loss, corruption, delay with jitter, reordering and duplication.
// Calls must come in time order (now never decreasing).
func (p *Path) Decide(now time.Time, size int) Decision {
	l := &p.link
	p.stats.Packets++
	p.stats.Bytes += uint64(size)

	depart := now
	if l.BandwidthBps > 0 {
		if p.busyUntil.Before(now) {
			p.busyUntil = now
		}
		limit := l.QueueLimit
		if limit == 0 {
			limit = DefaultQueueLimit
		}
		// The queue holds the bytes not yet serialised: its drain time
		// plus this packet's must fit in the drain time of a full queue.
		backlog := p.busyUntil.Sub(now)
		if backlog+txTime(size, l.BandwidthBps) > txTime(limit, l.BandwidthBps) {
			p.stats.QueueDropped++
			return Decision{Drop: DropQueue}
		}
		p.busyUntil = p.busyUntil.Add(txTime(size, l.BandwidthBps))
		depart = p.busyUntil
	}

	burstLost := p.burstStep()
	lost := chance(p.lossRNG, l.Loss)
	switch {
	case burstLost:
		p.stats.BurstLost++
		return Decision{Drop: DropBurst}
	case lost:
		p.stats.Lost++
		return Decision{Drop: DropLoss}
	}

	d := Decision{CorruptBit: -1}
	if size > 0 && chance(p.corruptRNG, l.Corrupt) {
		d.CorruptBit = p.corruptRNG.IntN(size * 8)
		p.stats.Corrupted++
	}
	d.At = p.arrival(depart)
	if chance(p.reorderRNG, l.Reorder) {
		hold := l.ReorderDelay
		if hold == 0 {
			hold = DefaultReorderDelay
		}
		d.At = d.At.Add(hold)
		d.Reordered = true
		p.stats.Reordered++
	}
	if chance(p.dupRNG, l.Duplicate) {
		d.DupAt = p.arrival(depart)
		p.stats.Duplicated++
	}
	return d
}

// burstStep advances the Gilbert–Elliott chain by one packet and reports
// whether it loses the packet.
func (p *Path) burstStep() bool {
	b := &p.link.Burst
	if b.Enter <= 0 {
		p.bad = false
		return false
	}
	if p.bad {
		p.bad = !chance(p.burstRNG, b.Exit)
	} else {
		p.bad = chance(p.burstRNG, b.Enter)
	}
	loss := b.GoodLoss
	if p.bad {
		loss = b.BadLoss
		if loss == 0 {
			loss = 1
		}
	}
	return chance(p.burstRNG, loss)
}

// arrival returns when a packet leaving the queue at depart arrives: after
// the latency plus a jitter drawn from [-Jitter, +Jitter] (never below
// zero), but not before the previous packet unless JitterReorders, then
// rounded up to the DeliveryInterval grid.
func (p *Path) arrival(depart time.Time) time.Time {
	d := p.link.Latency
	if j := p.link.Jitter; j > 0 {
		d += time.Duration(p.jitterRNG.Int64N(2*int64(j)+1)) - j
	}
	at := depart.Add(max(d, 0))
	if at.Before(p.lastAt) && !p.link.JitterReorders {
		at = p.lastAt
	}
	if g := int64(p.link.DeliveryInterval); g > 0 {
		if r := at.UnixNano() % g; r != 0 {
			at = at.Add(time.Duration((g - r) % g))
		}
	}
	if at.After(p.lastAt) {
		p.lastAt = at
	}
	return at
}

// chance reports true with probability prob. It draws from r only when
// the outcome is uncertain, so a disabled impairment consumes nothing.
func chance(r *rand.Rand, prob float64) bool {
	switch {
	case prob <= 0 || math.IsNaN(prob):
		return false
	case prob >= 1:
		return true
	}
	return r.Float64() < prob
}

// txTime is the serialisation time of n bytes at bps bytes per second.
func txTime(n int, bps int64) time.Duration {
	hi, lo := bits.Mul64(uint64(max(n, 0)), uint64(time.Second))
	if hi >= uint64(bps) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(bps))
	return time.Duration(min(q, math.MaxInt64))
}

// splitmix is the SplitMix64 finaliser, used to derive unrelated PCG seeds.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
