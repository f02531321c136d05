package netsim

import (
	"errors"
	"fmt"
	"time"
)

// DefaultQueueLimit is the bandwidth queue's capacity in bytes when
// Link.QueueLimit is zero: 64 KiB, about 52 ms at 10 Mbit/s.
const DefaultQueueLimit = 64 << 10

// DefaultReorderDelay is the extra hold-back of a reordered packet when
// Link.ReorderDelay is zero. It is longer than one 60 Hz frame (16.7 ms), so
// a reordered packet of a 60 Hz stream is overtaken by at least the next one.
const DefaultReorderDelay = 20 * time.Millisecond

// ErrInvalidLink reports a Link field out of its range (see Link.Validate).
var ErrInvalidLink = errors.New("netsim: invalid link")

// Link describes the impairment of one direction. The zero value is a
// perfect link: no delay, no loss, unlimited bandwidth.
//
// Probabilities are per packet and lie in [0, 1]; Validate rejects other
// values, and the model treats a value below 0 as 0 and above 1 as 1.
type Link struct {
	// Latency is the one-way delay added to every packet.
	Latency time.Duration
	// Jitter adds a delay drawn uniformly from [-Jitter, +Jitter] to each
	// packet (the total delay never goes below zero). Jitter never
	// reorders unless JitterReorders: like a FIFO path, a packet that
	// would overtake the one before it arrives together with it instead,
	// so when packets are closer together than the jitter range their
	// delays bunch towards Latency+Jitter. Reorder is then the only source
	// of reordering.
	Jitter time.Duration
	// JitterReorders draws each packet's jitter independently, as Linux
	// netem does: packets sent less than 2×Jitter apart may swap order.
	JitterReorders bool
	// DeliveryInterval, when positive, releases packets in bursts: a
	// packet arriving at t is delivered at the next multiple of the
	// interval (counted from the Unix epoch, so times must lie within
	// time.UnixNano's years 1678–2262), together with every other
	// packet that arrived since the previous one, as a receiver that wakes
	// on a coarse timer or a path that aggregates acknowledgements does.
	DeliveryInterval time.Duration
	// Loss is the probability that a packet is dropped, independently of
	// every other packet.
	Loss float64
	// Burst adds Gilbert–Elliott correlated loss on top of Loss.
	Burst Burst
	// Duplicate is the probability that a packet is delivered twice. The
	// copy draws its own jitter and arrives after the original.
	Duplicate float64
	// Reorder is the probability that a packet is held back by an extra
	// ReorderDelay after its jittered arrival, so that packets sent after
	// it overtake it.
	Reorder float64
	// ReorderDelay is the hold-back of a reordered packet; zero means
	// DefaultReorderDelay. Pick it longer than the gap between packets,
	// otherwise a held-back packet is late but not overtaken.
	ReorderDelay time.Duration
	// Corrupt is the probability that one uniformly chosen bit of a packet
	// is flipped. A corrupted packet is still delivered.
	Corrupt float64
	// BandwidthBps limits the link to this many BYTES per second; zero or
	// less means unlimited. Packets wait in a FIFO queue behind earlier ones
	// and leave it after their serialisation time (size / BandwidthBps).
	BandwidthBps int64
	// QueueLimit bounds the bytes waiting in the bandwidth queue (including
	// the packet being serialised); a packet that does not fit is dropped
	// (tail drop). Zero means DefaultQueueLimit. Unused without BandwidthBps.
	QueueLimit int
}

// Burst is a Gilbert–Elliott two-state loss model. The link is either Good
// or Bad; before each packet it moves Good→Bad with probability Enter and
// Bad→Good with probability Exit, then drops the packet with the loss
// probability of its state. The zero value never enters Bad (no effect).
//
// With GoodLoss 0 and BadLoss 1 (the classic Gilbert model) the mean length
// of a loss burst is 1/Exit packets and the long-run loss rate is
// Enter/(Enter+Exit).
type Burst struct {
	// Enter is the per-packet probability of moving from Good to Bad.
	Enter float64
	// Exit is the per-packet probability of moving from Bad to Good.
	Exit float64
	// GoodLoss is the loss probability in the Good state.
	GoodLoss float64
	// BadLoss is the loss probability in the Bad state; zero means 1 (every
	// packet is lost), since a Bad state that loses nothing has no effect.
	BadLoss float64
}

// Config is the impairment of a wrapped PacketConn. The zero value is a
// perfect connection.
type Config struct {
	// Seed selects the random decisions: the same Seed and the same
	// sequence of packets (sizes and times) give the same impairment.
	Seed uint64
	// Out impairs packets written with WriteTo.
	Out Link
	// In impairs packets received from the wrapped connection before
	// ReadFrom returns them.
	In Link
	// OutVia, when set, replaces Out with a Bottleneck shared with other
	// PacketConns: their packets queue together (Stats then counts them
	// all for Out).
	OutVia *Bottleneck
	// ReadQueue bounds the packets that have arrived but are not yet read
	// (like a socket's receive buffer); further arrivals are dropped and
	// counted as Overflow. Zero means DefaultReadQueue.
	ReadQueue int
}

// DefaultReadQueue is the number of arrived, unread packets a PacketConn
// holds when Config.ReadQueue is zero.
const DefaultReadQueue = 4096

// Validate reports the first field out of range: a negative duration,
// queue limit, or bandwidth, or a probability outside [0, 1].
func (l Link) Validate() error {
	durations := []struct {
		name string
		d    time.Duration
	}{{"latency", l.Latency}, {"jitter", l.Jitter}, {"reorder delay", l.ReorderDelay},
		{"delivery interval", l.DeliveryInterval}}
	for _, d := range durations {
		if d.d < 0 {
			return fmt.Errorf("%w: negative %s %v", ErrInvalidLink, d.name, d.d)
		}
	}
	probs := []struct {
		name string
		p    float64
	}{
		{"loss", l.Loss}, {"duplicate", l.Duplicate}, {"reorder", l.Reorder}, {"corrupt", l.Corrupt},
		{"burst enter", l.Burst.Enter}, {"burst exit", l.Burst.Exit},
		{"burst good loss", l.Burst.GoodLoss}, {"burst bad loss", l.Burst.BadLoss},
	}
	for _, p := range probs {
		if !(p.p >= 0 && p.p <= 1) { // also rejects NaN
			return fmt.Errorf("%w: %s probability %v outside [0, 1]", ErrInvalidLink, p.name, p.p)
		}
	}
	if l.BandwidthBps < 0 {
		return fmt.Errorf("%w: negative bandwidth %d", ErrInvalidLink, l.BandwidthBps)
	}
	if l.QueueLimit < 0 {
		return fmt.Errorf("%w: negative queue limit %d", ErrInvalidLink, l.QueueLimit)
	}
	return nil
}

// Validate checks both directions.
func (c Config) Validate() error {
	if err := c.Out.Validate(); err != nil {
		return fmt.Errorf("out: %w", err)
	}
	if err := c.In.Validate(); err != nil {
		return fmt.Errorf("in: %w", err)
	}
	if c.ReadQueue < 0 {
		return fmt.Errorf("%w: negative read queue %d", ErrInvalidLink, c.ReadQueue)
	}
	return nil
}
