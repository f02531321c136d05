package fogauth

import (
	"errors"
	"fmt"
	"time"
)

// ErrConfig reports an invalid Config or room set-up.
var ErrConfig = errors.New("fogauth: invalid configuration")

// Config is a fog-authoritative room's settings: the seed's
// [relay.fogauth] keys and the server's own bounds. The zero value is the
// seed's defaults.
type Config struct {
	// TickRate is the authoritative simulation's ticks per second.
	// 0 means 30.
	TickRate int
	// BandwidthPerClientKbps is each client's state budget in KiB per
	// second; the per-tick budget is BandwidthPerClientKbps*1024/TickRate
	// bytes (2,184 at the defaults). 0 means 64.
	BandwidthPerClientKbps int
	// MaxEntitiesPerUpdate caps the deltas sent to one client in one tick.
	// 0 means 200.
	MaxEntitiesPerUpdate int
	// StalenessBonus is the priority an entity with a pending delta gains
	// per tick it waits, on top of its tier's base, at most
	// MaxStalenessBonus. 0 means 3; NoStalenessBonus (any negative value)
	// means none.
	StalenessBonus int
	// MaxMessageSize is the largest StateUpdate in bytes; a tick needing
	// more sends several. It must fit one datagram of the transport.
	// 0 means 1100.
	MaxMessageSize int
	// FullMapSpectators lets spectators see every entity (tournament
	// casting) instead of the union of the players' views.
	FullMapSpectators bool
	// MaxOrdersPerTick bounds the orders one client may give per tick;
	// more are rejected with RejectRate. 0 means 64.
	MaxOrdersPerTick int
	// MaxUnackedParts bounds the StateUpdates remembered per client while
	// waiting for acknowledgement. A client that falls this far behind
	// receives no new deltas until it acknowledges. 0 means 1024.
	MaxUnackedParts int
	// AlwaysRecomputeFog turns the sight-source hashing off: every
	// player's fog is recomputed every tick. The output is identical; only
	// the cost differs.
	AlwaysRecomputeFog bool
	// AliasKey is the secret that orders, on a client's wire, entities it
	// cannot tell apart when they come into view together (see aliases).
	// Not a configuration key: draw it from crypto/rand per room
	// (fogserver does); the zero key is for tests.
	AliasKey [16]byte
}

// NoStalenessBonus as Config.StalenessBonus turns the staleness bonus off
// (the configuration key's 0).
const NoStalenessBonus = -1

// MaxStalenessBonus bounds Config.StalenessBonus. Priorities saturate, so
// no value overflows them; beyond this, waiting would outweigh every tier
// within a tick anyway.
const MaxStalenessBonus = 1 << 16

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.TickRate, 30)
	def(&c.BandwidthPerClientKbps, 64)
	def(&c.MaxEntitiesPerUpdate, 200)
	def(&c.StalenessBonus, 3)
	def(&c.MaxMessageSize, 1100)
	def(&c.MaxOrdersPerTick, 64)
	def(&c.MaxUnackedParts, 1024)
	return c
}

// Validate reports the first bad setting by its configuration key.
func (c Config) Validate() error {
	c = c.WithDefaults()
	switch {
	case c.TickRate < 1 || c.TickRate > 1000:
		return fmt.Errorf("%w: tick_rate %d (1..1000)", ErrConfig, c.TickRate)
	case c.BandwidthPerClientKbps < 1:
		return fmt.Errorf("%w: bandwidth_per_client_kbps %d (at least 1)", ErrConfig, c.BandwidthPerClientKbps)
	case c.MaxEntitiesPerUpdate < 1 || c.MaxEntitiesPerUpdate > 65535:
		return fmt.Errorf("%w: max_entities_per_update %d (1..65535)", ErrConfig, c.MaxEntitiesPerUpdate)
	case c.StalenessBonus > MaxStalenessBonus:
		return fmt.Errorf("%w: priority_staleness_bonus %d (0..%d)", ErrConfig, c.StalenessBonus, MaxStalenessBonus)
	case c.MaxMessageSize < HeaderSize+EnterSize+MaxUpdateSize:
		return fmt.Errorf("%w: max message size %d (at least %d)", ErrConfig, c.MaxMessageSize, HeaderSize+EnterSize+MaxUpdateSize)
	case c.BudgetBytes() < HeaderSize+EnterSize+MaxUpdateSize:
		return fmt.Errorf("%w: bandwidth_per_client_kbps %d gives %d bytes per tick, less than one entity needs", ErrConfig, c.BandwidthPerClientKbps, c.BudgetBytes())
	case c.MaxOrdersPerTick < 1 || c.MaxUnackedParts < 1:
		return fmt.Errorf("%w: order and acknowledgement bounds must be positive", ErrConfig)
	}
	return nil
}

// BudgetBytes is the per-client byte budget of one tick, StateUpdate
// headers included.
func (c Config) BudgetBytes() int {
	c = c.WithDefaults()
	return c.BandwidthPerClientKbps * 1024 / c.TickRate
}

// TickInterval is the length of one tick.
func (c Config) TickInterval() time.Duration {
	return time.Second / time.Duration(c.WithDefaults().TickRate)
}
