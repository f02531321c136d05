package predict

import "time"

// LatePolicy is what the server does with an input that arrives after its
// intended tick has been simulated.
type LatePolicy uint8

// Late-input policies.
const (
	// LateApplyNext applies a late input at the next tick the client has
	// free, counts it and flags its InputAck as late (the default: a late
	// input still moves the player, and the client's replay of the
	// acknowledged state corrects its prediction by one tick of drift).
	LateApplyNext LatePolicy = iota
	// LateReject drops a late input, counts it and acknowledges nothing for
	// it; the player keeps its held intent for the tick.
	LateReject
)

// ServerConfig configures a prediction room. The zero value is usable:
// every zero field takes the default named beside it.
type ServerConfig struct {
	TickRate      int            // ticks per second; 60
	SnapshotEvery int            // ticks between snapshots to each client; 1
	FullEvery     int            // a client gets a full snapshot at least every this many ticks; 2·TickRate
	History       int            // snapshots kept as delta baselines (the baseline window); 64, at most MaxBaselineWindow
	MaxAhead      int            // ticks an input may be scheduled ahead of the server; TickRate/2
	Late          LatePolicy     // LateApplyNext
	MaxInputRate  int            // inputs per second a client may send; 2·TickRate (burst: 1 s of it)
	MaxQueued     int            // inputs queued per client; 2·TickRate
	MaxPlayers    int            // 32, at most 255
	MaxCatchUp    int            // ticks run by one Tick call before the schedule slips; 8
	Epoch         time.Duration  // the clock value of tick 0
	Interest      InterestConfig // interest management; off
}

func (c ServerConfig) withDefaults() ServerConfig {
	c.TickRate = min(max(orInt(c.TickRate, 60), 1), MaxTickRate)
	c.SnapshotEvery = min(orInt(c.SnapshotEvery, 1), MaxTickRate)
	c.FullEvery = orInt(c.FullEvery, 2*c.TickRate)
	c.History = min(orInt(c.History, 64), MaxBaselineWindow)
	c.MaxAhead = min(orInt(c.MaxAhead, max(c.TickRate/2, 2)), 1<<16-1)
	c.MaxInputRate = orInt(c.MaxInputRate, 2*c.TickRate)
	c.MaxQueued = orInt(c.MaxQueued, 2*c.TickRate)
	c.MaxPlayers = min(orInt(c.MaxPlayers, 32), 255)
	c.MaxCatchUp = orInt(c.MaxCatchUp, 8)
	c.Interest = c.Interest.withDefaults(c.TickRate)
	return c
}

func orInt(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// Interval is the duration of one tick.
func (c ServerConfig) Interval() time.Duration {
	return time.Second / time.Duration(c.withDefaults().TickRate)
}
