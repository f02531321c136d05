package relay

import (
	"math"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// PlayerStatus is a player's standing in the match.
type PlayerStatus uint8

// Player statuses.
const (
	StatusActive  PlayerStatus = iota
	StatusLeaving              // removal scheduled; orders ignored, Idle until then
	StatusRemoved
	StatusAway      // disconnected, may rejoin; Idle meanwhile
	StatusRejoining // back, loading a snapshot and catching up; Idle meanwhile
)

func (s PlayerStatus) String() string {
	return [...]string{"active", "leaving", "removed", "away", "rejoining"}[s]
}

// PlayerState is the relay's view of one player.
type PlayerState struct {
	ID     protocol.PlayerID
	Status PlayerStatus
	// Calibration is the player's match-start calibration.
	Calibration PlayerCalibration
	Clock       ClockCalibration
	Budget      OrderBudget
	Bandwidth   ByteBucket
	Metrics     PlayerMetrics
	// Strikes are the anti-lag-switch strikes held now; Suspicious counts
	// timestamp claims outside the skew budget over the match.
	Strikes, Suspicious int
	// LateSubmissions and IdleTicks count over the match.
	LateSubmissions, IdleTicks int
	// LastHeard is when the player last showed life.
	LastHeard time.Duration
	// LastEcho is the newest tick whose liveness token the player echoed;
	// valid once Echoed.
	LastEcho uint64
	Echoed   bool
	// Rejoins counts the player's reconnections over the match.
	Rejoins int
}

// PlayerMetrics combines what the client reports (ClientMetrics) with what
// the relay observes; QoS adaptation works on it.
type PlayerMetrics struct {
	// Reported by the client.
	AvgLatencyUs     uint32
	AvgFPS           uint16
	ArrivalCushion   int16
	TickProcessingUs uint32
	// Observed by the relay over the last QoS window.
	JitterUs        uint32
	LateCountWindow uint16
	EWMALateRateBps uint16
}

// updateFromClient merges a ClientMetrics report.
func (m *PlayerMetrics) updateFromClient(cm *msg.ClientMetrics) {
	m.AvgLatencyUs = cm.AvgLatencyUs
	m.AvgFPS = cm.AvgFPS
	m.ArrivalCushion = cm.ArrivalCushion
	m.TickProcessingUs = cm.TickProcessingUs
}

type player struct {
	index     int
	state     PlayerState
	onTimeRun int // on-time submissions since the last strike decay
	// stalled is set while the player's late submissions form a stall
	// (see stallUnexplained) that began at stallFrom and may last
	// stallAllowance.
	stalled                   bool
	stallFrom, stallAllowance time.Duration
	win                       windowStats // the current QoS window
	// excluded counts the QoS windows left in which the player is left out
	// of adaptation for being late without network evidence.
	excluded int
	// awayUntil is when an away or rejoining player is removed.
	awayUntil time.Duration
}

// windowStats is one player's arrivals in the current QoS window.
type windowStats struct {
	ticks, late int   // ticks expected, ticks without an on-time submission
	n           int64 // submissions
	sum, sumSq  int64 // of the arrival margin in µs
	// path is the same of the path margin: the deadline less the
	// submission's transit (arrival less the relay's estimate of its send),
	// the margin an order issued at its window's very end would have had,
	// whatever submit offset the client used.
	path    margins
	flagged bool // late in an unexplained stall this window
}

// margins sums margins in µs.
type margins struct{ n, sum, sumSq int64 }

func (m *margins) add(v int64) { m.n, m.sum, m.sumSq = m.n+1, m.sum+v, m.sumSq+v*v }

// stats returns the mean and standard deviation.
func (m *margins) stats() (mean, std int64) {
	if m.n == 0 {
		return 0, 0
	}
	mean = m.sum / m.n
	return mean, int64(math.Sqrt(float64(max(m.sumSq/m.n-mean*mean, 0))))
}

// marginStats returns the mean and standard deviation of the window's
// arrival margins in µs.
func (w *windowStats) marginStats() (mean, std int64) {
	if w.n == 0 {
		return 0, 0
	}
	mean = w.sum / w.n
	return mean, int64(math.Sqrt(float64(max(w.sumSq/w.n-mean*mean, 0))))
}

// marginTarget is the arrival margin TimingFeedback steers a player to:
// twice its spread plus 2 ms.
func marginTarget(std int64) int64 { return 2*std + 2000 }

// cushioned reports whether the player's path would keep its target
// margin if the deadline were lowered one step: the path margin, not the
// arrival margin, so a client that sends early to make up for a path
// longer than the deadline (its submit offset) does not look cushioned
// and let the deadline fall further below its path. A deadline below a
// player's path costs it the orders it issues in the last part of each
// window (they go to the next) and so its sub-tick parity: the offset is
// timing assistance, not a licence to shorten the deadline.
func (w *windowStats) cushioned() bool {
	mean, std := w.path.stats()
	return w.path.n > 0 && mean-int64(qosLowerStep/time.Microsecond) >= marginTarget(std)
}

func newPlayer(id protocol.PlayerID, index int, cfg Config, now time.Duration) *player {
	r := cfg.Rate
	return &player{index: index, state: PlayerState{
		ID:        id,
		Budget:    OrderBudget{Tokens: r.BurstCap, RefillPerTick: r.RefillPerTick, BurstCap: r.BurstCap},
		Bandwidth: ByteBucket{Tokens: r.BytesBurst, PerTick: r.BytesPerTick, Burst: r.BytesBurst},
		LastHeard: now,
	}}
}

// strike gives an active player a strike and removes it at the limit.
func (c *Core) strike(p *player, reason string) {
	if p.state.Status != StatusActive {
		return
	}
	p.state.Strikes++
	p.onTimeRun = 0
	c.emit(Strike{Player: p.state.ID, Strikes: p.state.Strikes, Reason: reason})
	if p.state.Strikes >= c.cfg.Strikes.Limit {
		c.scheduleRemoval(p, msg.ReasonLagSwitch)
	}
}

// scheduleRemoval removes a player still in the match (active, away or
// rejoining): during play at a tick RemovalLead ticks ahead, announced
// now and in every frame until then; before play at once.
func (c *Core) scheduleRemoval(p *player, reason msg.RemovalReason) {
	if p.state.Status == StatusLeaving || p.state.Status == StatusRemoved {
		return
	}
	r := msg.Removal{Player: p.state.ID, Reason: reason}
	if c.phase == PhasePlaying {
		p.state.Status = StatusLeaving
		r.AtTick = c.timeline.next + uint64(c.cfg.RemovalLead)
		c.removals = append(c.removals, r)
	}
	c.broadcast(&msg.PlayerRemoved{Removal: r})
	c.emit(RemovalScheduled{r})
	if c.phase != PhasePlaying {
		c.removed(p, r)
		return
	}
	c.sync.recheck(c)
}

// removed takes a removal into effect.
func (c *Core) removed(p *player, r msg.Removal) {
	p.state.Status = StatusRemoved
	c.emit(PlayerRemoved{r})
	c.playerGone()
}

// playerGone re-evaluates whatever was waiting on every player.
func (c *Core) playerGone() {
	remaining := 0
	c.active(func(*player) { remaining++ })
	if remaining == 0 && len(c.removals) == 0 {
		c.phase = PhaseEnded
		return
	}
	switch c.phase {
	case PhaseCalibrating:
		c.calibrationTick()
	case PhaseCommitting:
		c.checkCommits()
	case PhaseRevealing:
		c.checkReveals()
	case PhasePlaying:
		c.sync.recheck(c)
	}
}
