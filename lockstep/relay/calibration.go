package relay

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/protocol"
)

// MatchCalibration is the outcome of match-start calibration: per-player
// measurements and the match-global timing derived from them.
type MatchCalibration struct {
	PerPlayer []PlayerCalibration
	// SharedInitialRunAhead is ceil(InitialTickDeadline / tick interval),
	// clamped to the profile.
	SharedInitialRunAhead uint8
	// InitialTickDeadline is the robust match envelope clamped to the
	// profile.
	InitialTickDeadline time.Duration
}

// PlayerCalibration is one player's calibration.
type PlayerCalibration struct {
	Player    protocol.PlayerID
	Samples   int
	MedianRTT time.Duration
	// Jitter is the RTT spread, p95 - p5.
	Jitter time.Duration
	// EstimatedOneWay is MedianRTT / 2; OneWayP95 is the RTT's p95 / 2.
	EstimatedOneWay time.Duration
	OneWayP95       time.Duration
	// ClockOffset maps the client's clock onto the relay's (relay =
	// client + ClockOffset): the median offset of the samples with the
	// lower half of the RTTs, whose paths were least delayed.
	ClockOffset time.Duration
	// SubmitOffset is how much earlier than its window end the player
	// should send because its path is slower than the shared deadline
	// covers (timing assistance only; it never changes order priority).
	SubmitOffset time.Duration
}

// pingSample is one ping-pong exchange.
type pingSample struct {
	rtt, offset time.Duration
}

// percentile is the nearest-rank p-th percentile (p in 1..100) of sorted
// values: the smallest value with at least p% of values at or below it.
func percentile(sorted []time.Duration, p int) time.Duration {
	return metrics.Quantile(sorted, float64(p)/100)
}

// calibratePlayer reduces one player's ping samples.
func calibratePlayer(id protocol.PlayerID, samples []pingSample) PlayerCalibration {
	rtts := make([]time.Duration, len(samples))
	for i, s := range samples {
		rtts[i] = s.rtt
	}
	slices.Sort(rtts)
	med := percentile(rtts, 50)
	var offs []time.Duration
	for _, s := range samples {
		if s.rtt <= med {
			offs = append(offs, s.offset)
		}
	}
	slices.Sort(offs)
	return PlayerCalibration{
		Player:          id,
		Samples:         len(samples),
		MedianRTT:       med,
		Jitter:          percentile(rtts, 95) - percentile(rtts, 5),
		EstimatedOneWay: med / 2,
		OneWayP95:       percentile(rtts, 95) / 2,
		ClockOffset:     percentile(offs, 50),
	}
}

// matchEnvelope computes the shared initial deadline and run-ahead with the
// seed design's robust envelope:
//
//	clipped_one_way_i = min(one_way_p95_i, median(one_way_p95) + one_way_clip)
//	clipped_jitter_i  = min(jitter_p95_i, median(jitter_p95) + jitter_clip)
//	candidate         = p90(clipped_one_way) + 2*p90(clipped_jitter) + safety_margin
//	deadline          = clamp(candidate, deadline_min, deadline_max)
//	run_ahead         = clamp(ceil(deadline / tick), run_ahead_min, run_ahead_max)
//
// It also sets each player's SubmitOffset.
func matchEnvelope(per []PlayerCalibration, prof QosProfile, tick time.Duration) MatchCalibration {
	ow := make([]time.Duration, len(per))
	jit := make([]time.Duration, len(per))
	for i, p := range per {
		ow[i], jit[i] = p.OneWayP95, p.Jitter
	}
	owMed := percentile(slices.Sorted(slices.Values(ow)), 50)
	jitMed := percentile(slices.Sorted(slices.Values(jit)), 50)
	for i := range per {
		ow[i] = min(ow[i], owMed+prof.OneWayClip)
		jit[i] = min(jit[i], jitMed+prof.JitterClip)
	}
	slices.Sort(ow)
	slices.Sort(jit)
	candidate := percentile(ow, 90) + 2*percentile(jit, 90) + prof.SafetyMargin
	deadline := min(max(candidate, prof.DeadlineMin), prof.DeadlineMax)
	ra := int64((deadline + tick - 1) / tick)
	runAhead := uint8(min(max(ra, int64(prof.RunAheadMin)), int64(prof.RunAheadMax)))
	for i := range per {
		per[i].SubmitOffset = max(0, per[i].OneWayP95+2*per[i].Jitter-deadline)
	}
	return MatchCalibration{PerPlayer: per, SharedInitialRunAhead: runAhead, InitialTickDeadline: deadline}
}

// calibrator runs the ping exchange of the loading screen.
type calibrator struct {
	started  time.Duration
	sent     int             // pings sent to everyone so far
	sentAt   []time.Duration // by sequence number
	samples  [][]pingSample  // by player index
	received [][]bool        // by player index, then sequence number
}

func newCalibrator(now time.Duration, players, pings int) *calibrator {
	c := &calibrator{started: now, sentAt: make([]time.Duration, pings),
		samples: make([][]pingSample, players), received: make([][]bool, players)}
	for i := range c.received {
		c.received[i] = make([]bool, pings)
	}
	return c
}

// pong records a pong from player i received at now. It reports false for
// an unknown sequence number, a wrong echo, a duplicate or impossible
// timestamps.
func (c *calibrator) pong(i int, now time.Duration, seq int, relaySend, clientRecv, clientSend time.Duration) bool {
	if seq >= c.sent || c.received[i][seq] || relaySend != c.sentAt[seq] || clientSend < clientRecv {
		return false
	}
	rtt := (now - relaySend) - (clientSend - clientRecv)
	if rtt < 0 {
		return false
	}
	c.received[i][seq] = true
	// relay = client + offset; NTP's estimate on a symmetric path.
	offset := ((relaySend - clientRecv) + (now - clientSend)) / 2
	c.samples[i] = append(c.samples[i], pingSample{rtt: rtt, offset: offset})
	return true
}

// calibrationTick sends the pings that are due and finishes calibration
// when every player has answered enough of them or time is up.
func (c *Core) calibrationTick() {
	cal, cfg := c.cal, c.cfg.Calibration
	for cal.sent < cfg.Pings && c.now >= cal.started+time.Duration(cal.sent)*cfg.Interval {
		at := c.now.Truncate(time.Microsecond)
		cal.sentAt[cal.sent] = at
		c.active(func(p *player) {
			c.send(p.state.ID, &msg.CalibrationPing{Seq: uint16(cal.sent), RelaySendUs: durUs(at)})
		})
		cal.sent++
	}
	all, enough := true, true
	c.active(func(p *player) {
		n := len(cal.samples[p.index])
		all = all && n >= cfg.Pings
		enough = enough && n >= cfg.MinPongs
	})
	lastDone := cal.sent == cfg.Pings && c.now >= cal.sentAt[cfg.Pings-1]+cfg.Interval
	if all || (enough && lastDone) || c.now >= cal.started+cfg.Timeout {
		c.finishCalibration()
	}
}

// calibrationDeadline is when calibrationTick next has something to do.
func (c *Core) calibrationDeadline() time.Duration {
	cal, cfg := c.cal, c.cfg.Calibration
	t := cal.started + cfg.Timeout
	if cal.sent < cfg.Pings {
		t = min(t, cal.started+time.Duration(cal.sent)*cfg.Interval)
	} else if last := cal.sentAt[cfg.Pings-1] + cfg.Interval; last > c.now {
		t = min(t, last) // enough pongs by then finish early
	}
	return t
}

func (c *Core) onPong(p *player, m *msg.CalibrationPong) error {
	if c.phase != PhaseCalibrating {
		return fmt.Errorf("%w: CalibrationPong while %v", ErrPhase, c.phase)
	}
	if !c.cal.pong(p.index, c.now, int(m.Seq), usToDur(m.RelaySendUs), usToDur(m.ClientRecvUs), usToDur(m.ClientSendUs)) {
		return fmt.Errorf("%w: seq %d", ErrBadPong, m.Seq)
	}
	c.calibrationTick()
	return nil
}

// finishCalibration reduces the ping samples; a player that answered none
// is removed.
func (c *Core) finishCalibration() {
	var per []PlayerCalibration
	var silent []*player
	c.active(func(p *player) {
		if s := c.cal.samples[p.index]; len(s) > 0 {
			per = append(per, calibratePlayer(p.state.ID, s))
		} else {
			silent = append(silent, p)
		}
	})
	c.applyCalibration(matchEnvelope(per, c.cfg.Profile, c.timeline.interval))
	for _, p := range silent {
		c.scheduleRemoval(p, msg.ReasonTimeout)
	}
}

// ApplyCalibration ends calibration with a given result instead of the
// ping exchange (an embedder that measured otherwise, or a test). The
// deadline and run-ahead are clamped to the profile. It fails unless the
// core is calibrating.
func (c *Core) ApplyCalibration(now time.Duration, cal MatchCalibration) error {
	c.advance(now)
	if c.phase != PhaseCalibrating {
		return fmt.Errorf("%w: ApplyCalibration while %v", ErrPhase, c.phase)
	}
	c.applyCalibration(cal)
	return nil
}

// applyCalibration seeds the match timing and every player's clock model,
// tells each player its timing, and opens the seed exchange.
func (c *Core) applyCalibration(cal MatchCalibration) {
	prof := c.cfg.Profile
	c.deadline = min(max(cal.InitialTickDeadline, prof.DeadlineMin), prof.DeadlineMax)
	c.runAhead = min(max(cal.SharedInitialRunAhead, prof.RunAheadMin), prof.RunAheadMax)
	c.qos = QosAdaptationState{}
	for _, pc := range cal.PerPlayer {
		p := c.player(pc.Player)
		if p == nil || p.state.Status != StatusActive {
			continue
		}
		p.state.Calibration = pc
		p.state.Clock.seed(pc.MedianRTT, pc.Jitter/4, pc.Jitter/4)
		p.state.Metrics.AvgLatencyUs = uint32(min(durUs(pc.MedianRTT), math.MaxUint32))
		p.state.Metrics.JitterUs = uint32(min(durUs(pc.Jitter), math.MaxUint32))
		c.send(pc.Player, &msg.MatchTiming{
			TickIntervalUs: uint32(durUs(c.timeline.interval)),
			RunAhead:       c.runAhead,
			DeadlineUs:     uint32(min(durUs(c.deadline), math.MaxUint32)),
			ClockOffsetUs:  int64(pc.ClockOffset / time.Microsecond),
			SubmitOffsetUs: int32(min(durUs(pc.SubmitOffset), math.MaxInt32)),
		})
	}
	c.emit(CalibrationDone{Calibration: cal})
	c.startSeed()
}
