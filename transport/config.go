package transport

import (
	"fmt"
	"hash/fnv"
	"log/slog"
	"time"

	"github.com/tickwire/tickwire/secure"
)

// Config configures connections. The zero value is usable: it gives the
// standard channel set, a 1200-byte MTU, 16 MiB messages and no bandwidth cap.
type Config struct {
	// Channels are the application channels (ids 1-255). Nil means
	// StandardChannels. Both sides must configure the same ids,
	// reliabilities, fragmentation, size limits and whether a channel may
	// compress at all (a receiver refuses compressed frames on a channel
	// configured CompressNever); the handshake checks it.
	Channels []ChannelConfig

	// MTU is the largest datagram sent, in bytes. 0 means 1200.
	MTU int
	// MaxMessageSize is the size limit of fragmenting channels that set no
	// limit of their own. 0 means 16 MiB.
	MaxMessageSize int

	// Bandwidth is the sending budget, enforced by pacing.
	Bandwidth BandwidthBudget

	// FlushInterval batches messages Nagle-style: new messages wait for the
	// next tick of this interval or an explicit Flush before they are
	// sent, so a tick's worth of small messages shares datagrams.
	// 0 sends as soon as possible (still coalescing whatever is queued).
	// Retransmissions and control messages never wait.
	FlushInterval time.Duration

	// AckDelay is how long an acknowledgement may wait for a datagram to
	// ride on. 0 means 5 ms. Every second datagram and every gap is acked
	// at once.
	AckDelay time.Duration
	// KeepAliveInterval is the idle time after which a ping is sent.
	// 0 means 1 s.
	KeepAliveInterval time.Duration
	// IdleTimeout closes a connection that received nothing for this long.
	// 0 means 10 s.
	IdleTimeout time.Duration
	// HandshakeTimeout bounds Dial and a server's wait for the client's
	// ready message. 0 means 5 s.
	HandshakeTimeout time.Duration
	// CloseTimeout bounds a graceful close: delivering queued reliable data
	// and the disconnect message. 0 means 3 s.
	CloseTimeout time.Duration
	// FragmentTimeout drops a partly reassembled message that made no
	// progress for this long. 0 means 10 s.
	FragmentTimeout time.Duration

	// CongestionControl selects the congestion controller that paces
	// reliable non-critical data: the zero value is the model-based
	// controller (CongestionModel); CongestionFixedWindow keeps only the
	// fixed MaxInFlightBytes window, for a LAN. Critical, unreliable and
	// control data are never held back by it.
	CongestionControl CongestionControl
	// MaxInFlightBytes bounds the bytes of unacknowledged datagrams that
	// carry non-critical data (critical and control data are exempt): the
	// window of CongestionFixedWindow, and an upper bound on the
	// model-based controller's. 0 means 1 MiB.
	MaxInFlightBytes int
	// MaxReceiveBuffer bounds delivered messages not yet read by the
	// application; beyond it, datagrams are left unacknowledged so the peer
	// retransmits later. 0 means 32 MiB.
	MaxReceiveBuffer int
	// MaxReassemblyBytes bounds the memory reserved for partly received
	// fragmented messages: each reserves its declared size plus its
	// fragment bookkeeping (see the package doc, Limits). 0 means twice
	// what the largest channel message may take.
	MaxReassemblyBytes int

	// CompressionWorkers is the size of the worker pool that compresses
	// messages of 4 KiB or more off the send path. 0 means 2.
	CompressionWorkers int

	// MaxConnections bounds a Listener's connections, including those
	// still in their handshake. 0 means 4096.
	MaxConnections int
	// AcceptBacklog bounds connections that finished their handshake but
	// were not yet returned by Accept. 0 means 128.
	AcceptBacklog int

	// Security, when set, authenticates and encrypts the connection (see
	// SecurityConfig): a stateless cookie exchange, X25519 key agreement,
	// Ed25519 identities and AES-256-GCM on every datagram. Nil keeps the
	// plaintext handshake, for trusted networks and tests. Both sides must
	// agree: an encrypted side ignores a plaintext peer's datagrams.
	Security *SecurityConfig
	// MemoryBudget bounds the bytes a connection holds in its send queues,
	// unacknowledged messages, reassembly and undelivered messages;
	// exceeding it ends the connection with ErrMemoryBudget. 0 means
	// 128 MiB (above what the default per-channel limits allow together);
	// a negative value means no budget beyond the individual limits.
	MemoryBudget int

	// Logger receives connection events. Nil discards them.
	Logger *slog.Logger
}

// BandwidthBudget is the sending budget of a connection (transport seed
// §8.2). It is enforced by pacing datagrams with token buckets.
type BandwidthBudget struct {
	// MaxBytesPerSecond caps the bytes of datagrams sent per second.
	// 0 means unlimited.
	MaxBytesPerSecond int
	// CriticalReserve is the fraction of the budget that only Critical
	// channels may use. 0 means 0.2; a negative value means none.
	CriticalReserve float64
	// BulkMaxFraction is the largest fraction of the budget Bulk channels
	// may use. 0 means 0.5; a negative value means no extra limit.
	BulkMaxFraction float64
}

// Default values.
const (
	DefaultMTU            = 1200
	DefaultMaxMessageSize = 16 << 20
	minMTU                = 128
	maxMTU                = 65000

	defaultChannelBuffer = 4 << 20
	defaultUnacked       = 4 << 20
	// asyncCompressMin is the size from which compression runs on the
	// worker pool instead of the sending goroutine.
	asyncCompressMin = 4 << 10
	// compressionLevel is the zstd level.
	compressionLevel = 3
)

// chanSettings is a resolved channel configuration.
type chanSettings struct {
	ChannelConfig
	maxSize int // effective MaxMessageSize
}

// settings is a validated Config with defaults applied.
type settings struct {
	channels      []chanSettings
	byID          [256]int16 // index into channels, -1 if absent
	mtu           int
	maxFramed     int // largest unfragmented payload
	fragPayload   int // payload bytes of one fragment
	budget        BandwidthBudget
	flushInterval time.Duration
	ackDelay      time.Duration
	keepAlive     time.Duration
	idleTimeout   time.Duration
	handshake     time.Duration
	closeTimeout  time.Duration
	fragTimeout   time.Duration
	maxInFlight   int
	congestion    CongestionControl
	maxRecvBuffer int
	maxReassembly int
	maxMessage    int // largest message of any channel
	workers       int
	maxConns      int
	backlog       int
	logger        *slog.Logger
	security      *SecurityConfig
	memoryBudget  int
	digest        uint64 // hash of what both sides must agree on
}

func orDefault[T ~int | ~int64 | ~uint8 | ~float64](v, d T) T {
	if v == 0 {
		return d
	}
	return v
}

// resolve validates c and applies the defaults.
func (c Config) resolve() (*settings, error) {
	s := &settings{
		mtu:           orDefault(c.MTU, DefaultMTU),
		flushInterval: c.FlushInterval,
		ackDelay:      orDefault(c.AckDelay, 5*time.Millisecond),
		keepAlive:     orDefault(c.KeepAliveInterval, time.Second),
		idleTimeout:   orDefault(c.IdleTimeout, 10*time.Second),
		handshake:     orDefault(c.HandshakeTimeout, 5*time.Second),
		closeTimeout:  orDefault(c.CloseTimeout, 3*time.Second),
		fragTimeout:   orDefault(c.FragmentTimeout, 10*time.Second),
		maxInFlight:   orDefault(c.MaxInFlightBytes, 1<<20),
		congestion:    c.CongestionControl,
		maxRecvBuffer: orDefault(c.MaxReceiveBuffer, 32<<20),
		workers:       orDefault(c.CompressionWorkers, 2),
		maxConns:      orDefault(c.MaxConnections, 4096),
		backlog:       orDefault(c.AcceptBacklog, 128),
		logger:        c.Logger,
		security:      c.Security,
		memoryBudget:  orDefault(c.MemoryBudget, 128<<20),
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.mtu < minMTU || s.mtu > maxMTU {
		return nil, fmt.Errorf("%w: MTU %d outside [%d, %d]", ErrInvalidConfig, s.mtu, minMTU, maxMTU)
	}
	if s.security != nil {
		s.mtu -= secure.Overhead // sealing adds the flags byte and the tag
	}
	s.maxFramed = s.mtu - headerLen - frameHeaderLen
	s.fragPayload = s.maxFramed - fragHeaderLen
	b := c.Bandwidth
	if b.MaxBytesPerSecond < 0 {
		return nil, fmt.Errorf("%w: negative bandwidth", ErrInvalidConfig)
	}
	b.CriticalReserve = max(orDefault(b.CriticalReserve, 0.2), 0)
	b.BulkMaxFraction = orDefault(b.BulkMaxFraction, 0.5)
	if b.BulkMaxFraction < 0 {
		b.BulkMaxFraction = 1
	}
	if b.CriticalReserve >= 1 || b.BulkMaxFraction > 1 {
		return nil, fmt.Errorf("%w: bandwidth fractions must be below 1", ErrInvalidConfig)
	}
	s.budget = b
	if c.CongestionControl > CongestionFixedWindow {
		return nil, fmt.Errorf("%w: unknown congestion control %d", ErrInvalidConfig, c.CongestionControl)
	}
	for _, d := range []time.Duration{s.flushInterval, s.ackDelay, s.keepAlive, s.idleTimeout, s.handshake, s.closeTimeout, s.fragTimeout} {
		if d < 0 {
			return nil, fmt.Errorf("%w: negative duration", ErrInvalidConfig)
		}
	}
	defMax := orDefault(c.MaxMessageSize, DefaultMaxMessageSize)
	limit := s.fragPayload * 0xFFFF // a fragment index is 16 bits
	if defMax > limit || defMax < 0 {
		return nil, fmt.Errorf("%w: MaxMessageSize %d exceeds %d at MTU %d", ErrInvalidConfig, defMax, limit, s.mtu)
	}
	chans := c.Channels
	if chans == nil {
		chans = StandardChannels()
	}
	for i := range s.byID {
		s.byID[i] = -1
	}
	h := fnv.New64a()
	add := func(cc ChannelConfig) error {
		if s.byID[cc.ID] >= 0 {
			return fmt.Errorf("%w: channel %d configured twice", ErrInvalidConfig, cc.ID)
		}
		if cc.Reliability > ReliableOrdered || cc.Priority > Bulk || cc.Compression > CompressAboveThreshold || cc.Redundancy > RedundancyAdaptive {
			return fmt.Errorf("%w: channel %d has an unknown reliability, priority, compression or redundancy policy", ErrInvalidConfig, cc.ID)
		}
		if cc.Weight < 0 || cc.Weight > 1000 || cc.MaxMessageSize < 0 || cc.MaxUnackedBytes < 0 ||
			cc.MaxQueuedMessages < 0 || cc.BufferLimit < 0 || cc.CompressionThreshold < 0 {
			return fmt.Errorf("%w: channel %d has a negative or huge limit", ErrInvalidConfig, cc.ID)
		}
		cs := chanSettings{ChannelConfig: cc}
		cs.Priority = orDefault(cc.Priority, Normal)
		cs.Weight = orDefault(cc.Weight, 1)
		cs.MaxUnackedBytes = orDefault(cc.MaxUnackedBytes, defaultUnacked)
		cs.BufferLimit = orDefault(cc.BufferLimit, defaultChannelBuffer)
		switch {
		case !cc.AllowFragmentation:
			cs.maxSize = min(orDefault(cc.MaxMessageSize, s.maxFramed), s.maxFramed)
		case cc.MaxMessageSize > limit:
			return fmt.Errorf("%w: channel %d MaxMessageSize %d exceeds %d", ErrInvalidConfig, cc.ID, cc.MaxMessageSize, limit)
		default:
			cs.maxSize = orDefault(cc.MaxMessageSize, defMax)
		}
		s.maxMessage = max(s.maxMessage, cs.maxSize)
		s.byID[cc.ID] = int16(len(s.channels))
		s.channels = append(s.channels, cs)
		fmt.Fprintf(h, "%d/%d/%t/%d/%t;", cc.ID, cc.Reliability, cc.AllowFragmentation, cs.maxSize, cc.Compression != CompressNever)
		return nil
	}
	if err := add(controlChannel()); err != nil {
		return nil, err
	}
	for _, cc := range chans {
		if cc.ID == ChannelControl {
			return nil, fmt.Errorf("%w: channel 0 is reserved", ErrInvalidConfig)
		}
		if err := add(cc); err != nil {
			return nil, err
		}
	}
	s.digest = h.Sum64()
	s.maxReassembly = orDefault(c.MaxReassemblyBytes, 2*ReassemblyCost(s.maxMessage))
	if need := ReassemblyCost(s.maxMessage); s.maxReassembly < need {
		return nil, fmt.Errorf("%w: MaxReassemblyBytes %d below %d, what reassembling the largest message (%d bytes) may take",
			ErrInvalidConfig, s.maxReassembly, need, s.maxMessage)
	}
	return s, nil
}

// channel returns the settings of id, or nil.
func (s *settings) channel(id ChannelID) *chanSettings {
	if i := s.byID[id]; i >= 0 {
		return &s.channels[i]
	}
	return nil
}
