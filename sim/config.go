package sim

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
	"github.com/tickwire/tickwire/protocol"
)

// Config holds the tunable rules of a match. The zero value is the
// reference game; a zero field takes its default. Every peer of a match
// must use the same Config, and a snapshot records its hash.
type Config struct {
	// MaxUnitsPerPlayer stops production at this many units (default 200).
	MaxUnitsPerPlayer int
	// MaxStructuresPerPlayer bounds Build orders (default 24).
	MaxStructuresPerPlayer int
	// StartingCredits is each player's purse at tick 0 (default 2000).
	StartingCredits int32
	// IncomePerTick is paid to every player owning a structure (default 4).
	IncomePerTick int32
	// Limits bounds order contents (units per order); zero fields take the
	// protocol defaults.
	Limits protocol.ProtocolLimits
}

// Defaults of Config.
const (
	DefaultMaxUnitsPerPlayer      = 200
	DefaultMaxStructuresPerPlayer = 24
	DefaultStartingCredits        = 2000
	DefaultIncomePerTick          = 4
	maxCredits                    = 1 << 30
)

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.MaxUnitsPerPlayer <= 0 {
		c.MaxUnitsPerPlayer = DefaultMaxUnitsPerPlayer
	}
	if c.MaxStructuresPerPlayer <= 0 {
		c.MaxStructuresPerPlayer = DefaultMaxStructuresPerPlayer
	}
	if c.StartingCredits <= 0 {
		c.StartingCredits = DefaultStartingCredits
	}
	if c.IncomePerTick <= 0 {
		c.IncomePerTick = DefaultIncomePerTick
	}
	c.Limits = c.Limits.WithDefaults()
	return c
}

// hash identifies the rules a snapshot was taken under. c must have its
// defaults applied.
func (c Config) hash() uint64 {
	var b [24]byte
	binary.LittleEndian.PutUint32(b[0:], uint32(c.MaxUnitsPerPlayer))
	binary.LittleEndian.PutUint32(b[4:], uint32(c.MaxStructuresPerPlayer))
	binary.LittleEndian.PutUint32(b[8:], uint32(c.StartingCredits))
	binary.LittleEndian.PutUint32(b[12:], uint32(c.IncomePerTick))
	binary.LittleEndian.PutUint32(b[16:], uint32(c.Limits.MaxUnitsPerOrder))
	binary.LittleEndian.PutUint32(b[20:], rulesVersion)
	return xxhash.Sum64(b[:])
}

// rulesVersion changes whenever the rules table or the tick systems change
// simulation results, so old snapshots are refused rather than misread.
const rulesVersion = 1
