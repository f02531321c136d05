package relay

import (
	"io"
	"time"

	"github.com/tickwire/tickwire/protocol"
)

// Defaults for a zero Config.
const (
	DefaultTickRate         = 30
	DefaultFeedbackInterval = 30
	DefaultHeartbeatTimeout = 5 * time.Second
	DefaultFrozenTimeout    = 3 * time.Second
	DefaultRemovalLead      = 10
	DefaultSeedTimeout      = 5 * time.Second
	DefaultStartDelay       = 500 * time.Millisecond
	DefaultLateGameAfter    = 20 * time.Minute
	DefaultSkewBudget       = 5 * time.Millisecond
	// MaxPlayers bounds the players of one match.
	MaxPlayers = 64
)

// Config configures a Core. The zero value is a ranked 30-tick match with
// the seed design's defaults; a zero field takes its default.
type Config struct {
	// TickRate is ticks per second.
	TickRate int
	// Profile bounds calibration and QoS adaptation; the zero value means
	// Ranked().
	Profile QosProfile
	// FeedbackInterval is the QoS window and the TimingFeedback period,
	// in ticks.
	FeedbackInterval int
	// Rate is the order rate control.
	Rate RateConfig
	// Limits bounds orders (the hard ceiling of orders per player per
	// tick, unit ids per order, custom payload size).
	Limits protocol.ProtocolLimits
	// Strikes is the anti-lag-switch policy.
	Strikes StrikeConfig
	// Calibration is the match-start ping exchange.
	Calibration CalibrationConfig
	// HeartbeatTimeout removes a player not heard from for this long.
	HeartbeatTimeout time.Duration
	// FrozenTimeout removes a player that keeps talking but has not
	// echoed a frame's liveness token this long after the frame was sent.
	FrozenTimeout time.Duration
	// RemovalLead is how many ticks after the decision a removal takes
	// effect, so every client learns of it before applying that tick.
	RemovalLead int
	// SeedTimeout bounds the commit phase and the reveal phase each.
	SeedTimeout time.Duration
	// StartDelay separates the seed result from the opening of tick 0.
	StartDelay time.Duration
	// LateGameAfter switches sync checks to the late-game frequency.
	LateGameAfter time.Duration
	// SkewBudget is the timing slack beyond a player's jitter envelope
	// before a timestamp claim counts as suspicious.
	SkewBudget time.Duration
	// Rejoin bounds reconnection by snapshot donor (Disconnected, Rejoin).
	Rejoin RejoinConfig
	// Filters is the order pipeline, in order; nil means DefaultFilters().
	Filters []Filter
	// Rand supplies the liveness tokens' seed; nil means crypto/rand.
	Rand io.Reader
	// DebugLevel is the match's desync debug level, 0..3, told to every
	// client at the start (1 order log, 2 cache validation, 3 periodic
	// snapshots); the desync walk runs at every level.
	DebugLevel uint8
	// DesyncTimeout bounds each round of the desync walk; 0 means
	// DefaultDesyncTimeout.
	DesyncTimeout time.Duration
}

// RateConfig is the three-layer order rate control. Zero fields take the
// defaults in brackets.
type RateConfig struct {
	RefillPerTick int // order budget tokens added each tick [16]
	BurstCap      int // order budget cap [128]
	BytesPerTick  int // bandwidth tokens added each tick [2048]
	BytesBurst    int // bandwidth bucket cap [16384]
}

// StrikeConfig is the anti-lag-switch policy: every submission that misses
// its tick's deadline in a stall longer than loss recovery explains is a
// strike (see the package doc), every DecayAfter on-time submissions
// forgive one, and Limit strikes remove the player.
type StrikeConfig struct {
	Limit      int  // [30], about one second of withheld ticks
	DecayAfter int  // [30]
	Suspicious bool // also strike suspicious timestamp claims (ranked relays)
}

// CalibrationConfig is the loading-screen ping exchange.
type CalibrationConfig struct {
	Pings    int           // pings per player [20]
	MinPongs int           // pongs needed to finish early [15]
	Interval time.Duration // between pings [100ms]
	Timeout  time.Duration // give up and use what arrived [5s]
}

// QosProfile bounds the match timing: calibration clamps to it and
// in-match adaptation never leaves it. Ranked and Casual return the
// defaults.
type QosProfile struct {
	DeadlineMin              time.Duration
	DeadlineMax              time.Duration
	RunAheadMin              uint8
	RunAheadMax              uint8
	MaxStepPerUpdate         uint8         // run-ahead ticks per adjustment
	OneWayClip               time.Duration // clip above the median one-way p95
	JitterClip               time.Duration // clip above the median jitter p95
	SafetyMargin             time.Duration // added to the initial deadline
	EWMAAlphaQ15             uint16        // late-rate smoothing, /32768
	RaiseLateRateBps         uint16        // raise above this late rate
	LowerLateRateBps         uint16        // lower below this late rate
	RaiseWindows             uint8         // consecutive windows to raise
	LowerWindows             uint8         // consecutive windows to lower
	CooldownWindows          uint8         // windows between adjustments
	PerPlayerInfluenceCapBps uint16        // one player's share of the late count
}

// Ranked is the ranked-queue profile: the seed design's defaults (EWMA
// 0.20, raise above 2.0% for 3 windows, lower below 0.2% for 8, cooldown 2,
// step 1, influence cap 40%) with deadline and run-ahead bounds of our
// choosing.
func Ranked() QosProfile {
	return QosProfile{
		DeadlineMin:              30 * time.Millisecond,
		DeadlineMax:              200 * time.Millisecond,
		RunAheadMin:              2,
		RunAheadMax:              8,
		MaxStepPerUpdate:         1,
		OneWayClip:               40 * time.Millisecond,
		JitterClip:               20 * time.Millisecond,
		SafetyMargin:             10 * time.Millisecond,
		EWMAAlphaQ15:             6554, // 0.20
		RaiseLateRateBps:         200,
		LowerLateRateBps:         20,
		RaiseWindows:             3,
		LowerWindows:             8,
		CooldownWindows:          2,
		PerPlayerInfluenceCapBps: 4000,
	}
}

// Casual is the casual-queue profile: EWMA 0.25 as the seed design says,
// and more latitude elsewhere (a higher deadline ceiling, faster reaction,
// a larger influence cap).
func Casual() QosProfile {
	return QosProfile{
		DeadlineMin:              30 * time.Millisecond,
		DeadlineMax:              350 * time.Millisecond,
		RunAheadMin:              2,
		RunAheadMax:              12,
		MaxStepPerUpdate:         1,
		OneWayClip:               80 * time.Millisecond,
		JitterClip:               40 * time.Millisecond,
		SafetyMargin:             15 * time.Millisecond,
		EWMAAlphaQ15:             8192, // 0.25
		RaiseLateRateBps:         300,
		LowerLateRateBps:         50,
		RaiseWindows:             2,
		LowerWindows:             6,
		CooldownWindows:          2,
		PerPlayerInfluenceCapBps: 6000,
	}
}

func orDefault[T int | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// withDefaults fills the zero fields.
func (c Config) withDefaults() Config {
	c.TickRate = orDefault(c.TickRate, DefaultTickRate)
	if c.Profile == (QosProfile{}) {
		c.Profile = Ranked()
	}
	c.FeedbackInterval = orDefault(c.FeedbackInterval, DefaultFeedbackInterval)
	c.Rate.RefillPerTick = orDefault(c.Rate.RefillPerTick, 16)
	c.Rate.BurstCap = orDefault(c.Rate.BurstCap, 128)
	c.Rate.BytesPerTick = orDefault(c.Rate.BytesPerTick, 2048)
	c.Rate.BytesBurst = orDefault(c.Rate.BytesBurst, 16384)
	c.Limits = c.Limits.WithDefaults()
	c.Strikes.Limit = orDefault(c.Strikes.Limit, 30)
	c.Strikes.DecayAfter = orDefault(c.Strikes.DecayAfter, 30)
	c.Calibration.Pings = orDefault(c.Calibration.Pings, 20)
	c.Calibration.MinPongs = min(orDefault(c.Calibration.MinPongs, 15), c.Calibration.Pings)
	c.Calibration.Interval = orDefault(c.Calibration.Interval, 100*time.Millisecond)
	c.Calibration.Timeout = orDefault(c.Calibration.Timeout, 5*time.Second)
	c.HeartbeatTimeout = orDefault(c.HeartbeatTimeout, DefaultHeartbeatTimeout)
	c.FrozenTimeout = orDefault(c.FrozenTimeout, DefaultFrozenTimeout)
	c.RemovalLead = orDefault(c.RemovalLead, DefaultRemovalLead)
	c.SeedTimeout = orDefault(c.SeedTimeout, DefaultSeedTimeout)
	c.StartDelay = orDefault(c.StartDelay, DefaultStartDelay)
	c.LateGameAfter = orDefault(c.LateGameAfter, DefaultLateGameAfter)
	c.SkewBudget = orDefault(c.SkewBudget, DefaultSkewBudget)
	c.Rejoin = c.Rejoin.withDefaults()
	c.DesyncTimeout = orDefault(c.DesyncTimeout, DefaultDesyncTimeout)
	if c.Filters == nil {
		c.Filters = DefaultFilters()
	}
	return c
}
