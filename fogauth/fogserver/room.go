package fogserver

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	twmetrics "github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server/room"
)

// timingsKept is how many of the last ticks the tick-time percentiles
// are over (the help of tickwire_fogauth_tick_p99_seconds says 1,024).
const timingsKept = 1024

// fogRoom is one fog-authoritative game's core for the room driver
// (server/room.Driver): a fogauth.Room and its seats. The driver's
// goroutine owns everything but published.
type fogRoom struct {
	cfg       Config
	name      string
	m         *metrics
	log       *slog.Logger
	clock     func() time.Duration
	seats     []room.Seat // the players, then spectators as they join
	players   int
	gone      []bool
	goneAt    []time.Duration // when a player's seat went; its rejoin window runs from there
	core      *fogauth.Room
	simSeed   uint64            // secret; logged at the end so the operator can replay the match
	rec       *replay.Recording // the match's replay, if recorded (replay.go)
	start     fogauth.MatchStart
	published atomic.Pointer[status]
	sat       saturation // the dashboard's series (room.Reporter)

	early       []room.Envelope // the room's own messages, before the core's (MatchStart)
	out         []room.Envelope
	coreReady   bool // out holds a core Ready to advance
	done        bool
	tickTimes   twmetrics.Samples[time.Duration] // the last timingsKept
	costTimes   twmetrics.Samples[time.Duration]
	ticks       int
	settleBy    time.Duration
	emptyUntil  time.Duration // while every player is gone: when the room ends unless one rejoins
	lastBytes   uint64
	lastRefresh time.Duration
	prev        fogauth.Stats // counters already added to the model's metrics
}

// status is a room's published figures.
type status struct {
	room.Status
	bytesPerClient   float64
	tickP99, costP99 time.Duration
}

func newRoom(cfg Config, m *metrics, p room.Params) (*fogRoom, error) {
	seed, simSeed := cfg.seed(), randomSeed()
	game, mapSize, err := cfg.NewGame(len(p.Seats), cfg.UnitsPerPlayer, seed, simSeed)
	if err != nil {
		return nil, err
	}
	rc := cfg.Room
	rc.TickRate = p.TickRate
	rand.Read(rc.AliasKey[:]) // per room, never sent: see fogauth.Config.AliasKey
	r := &fogRoom{cfg: cfg, name: p.Name, m: m, log: p.Logger, clock: p.Clock, seats: slices.Clone(p.Seats),
		players: len(p.Seats), gone: make([]bool, len(p.Seats)), goneAt: make([]time.Duration, len(p.Seats)), simSeed: simSeed,
		tickTimes: twmetrics.Samples[time.Duration]{Keep: timingsKept}, costTimes: twmetrics.Samples[time.Duration]{Keep: timingsKept}}
	core, err := fogauth.New(rc, r.record(game, p, seed), p.Clock())
	if err != nil {
		r.finishReplay()
		return nil, err
	}
	r.core = core
	r.start = fogauth.MatchStart{TickRate: uint16(p.TickRate), Players: uint8(len(p.Seats)),
		UnitsPerPlayer: uint16(cfg.UnitsPerPlayer), MapSize: uint16(mapSize), MapSeed: seed}
	for i, st := range p.Seats {
		if err := core.AddClient(clientID(i), st.Player); err != nil {
			return nil, err
		}
	}
	r.published.Store(&status{Status: room.Status{Phase: "playing"}})
	b := fogauth.AppendMatchStart(nil, r.start)
	for i := range r.seats {
		r.early = append(r.early, room.Envelope{Seat: i, Lane: LaneReliable, Data: b})
	}
	m.add(r)
	return r, nil
}

func clientID(seat int) fogauth.ClientID { return fogauth.ClientID(seat + 1) }

// Tick implements room.Core: a tick if one is due, the match's end once
// every player is done, the room's end once it is abandoned or settled.
func (r *fogRoom) Tick(now time.Duration) {
	if r.core.Due(now) {
		r.tick(now)
	}
	r.giveUp(now)
	if !r.core.Finished() && r.core.AllDone() {
		r.finish(now)
	}
	switch {
	case r.abandoned(now):
		r.done = true
	case r.core.Finished() && now >= r.settleBy:
		r.endAll()
		fallthrough
	case r.core.Finished() && r.core.Ended():
		r.end()
		r.done = true
	}
}

// Done implements room.Core.
func (r *fogRoom) Done() bool { return r.done }

// Next implements room.Core.
func (r *fogRoom) Next() (time.Duration, bool) { return r.core.NextDeadline(), true }

// End implements room.Core.
func (r *fogRoom) End(time.Duration) {
	r.m.remove(r)
	r.finishReplay()
}

// Handle implements room.Core.
func (r *fogRoom) Handle(_ time.Duration, in *room.Inbound) {
	switch {
	case in.Joined != nil:
		r.joined(in.Seat, *in.Joined)
		return
	case in.Err != nil:
		if !r.gone[in.Seat] {
			r.gone[in.Seat], r.goneAt[in.Seat] = true, r.clock()
			r.core.RemoveClient(clientID(in.Seat))
			r.log.Info("fogauth: disconnected", "player", r.seats[in.Seat].Player, "seat", in.Seat, "err", in.Err)
		}
		return
	}
	if r.gone[in.Seat] {
		return
	}
	if err := r.core.Step(clientID(in.Seat), in.Msg.Data); err != nil {
		r.log.Debug("fogauth: message refused", "player", r.seats[in.Seat].Player, "err", err)
	}
}

// joined seats a connection that joined while the room plays: a player
// back in its seat or a spectator. Its client starts from an empty view,
// so its first StateUpdates carry Enters for everything it sees, spread
// over ticks by the budget; it gets the MatchStart first.
func (r *fogRoom) joined(i int, st room.Seat) {
	for i >= len(r.seats) {
		r.seats, r.gone = append(r.seats, room.Seat{}), append(r.gone, true)
	}
	if !r.gone[i] { // the server posts a seat's end before its next join; be safe
		r.core.RemoveClient(clientID(i))
	}
	r.seats[i], r.gone[i] = st, false
	if err := r.core.AddClient(clientID(i), st.Player); err != nil {
		r.gone[i] = true
		r.log.Warn("fogauth: cannot seat a joiner", "seat", i, "err", err)
		return
	}
	r.log.Info("fogauth: joined while playing", "player", st.Player, "seat", i, "tick", r.core.Tick())
	r.early = append(r.early, room.Envelope{Seat: i, Lane: LaneReliable, Data: fogauth.AppendMatchStart(nil, r.start)})
}

// tick runs one tick, timing the simulation apart from the rest.
func (r *fogRoom) tick(now time.Duration) {
	t0 := r.clock()
	if r.core.Finished() {
		tp, cp := r.tickTimes.Quantile(0.99), r.costTimes.Quantile(0.99)
		r.core.SetEndTiming(uint32(tp/time.Microsecond), uint32(cp/time.Microsecond))
	}
	if err := r.core.Simulate(); err != nil {
		r.log.Error("fogauth: simulation", "err", err)
	}
	t1 := r.clock()
	r.core.Publish()
	t2 := r.clock()
	if r.cfg.OnTick != nil {
		r.cfg.OnTick(r.name, r.core)
	}
	before := r.core.Stats().SkippedTicks
	r.core.EndTick(now)
	r.m.skipped.Add(r.core.Stats().SkippedTicks - before)
	r.tickTimes.Observe(t2 - t0)
	r.costTimes.Observe(t2 - t1)
	r.m.ticks.Add(1)
	r.m.tickNs.Add(uint64(t2 - t0))
	r.m.costNs.Add(uint64(t2 - t1))
	r.ticks++
	if r.cfg.MatchTicks > 0 && r.ticks == r.cfg.MatchTicks {
		r.finish(now)
	}
}

// finish stops the simulation: the last tick was played (MatchTicks, or
// every player sent Done).
func (r *fogRoom) finish(now time.Duration) {
	r.core.Finish()
	r.settleBy = now + r.cfg.SettleTimeout
	r.log.Info("fogauth: last tick; settling", "tick", r.core.Tick())
}

// giveUp counts as done every player whose seat has been gone for its
// whole rejoin window, so the others' Done can end the match.
func (r *fogRoom) giveUp(now time.Duration) {
	for i := range r.players {
		if r.gone[i] && now-r.goneAt[i] >= r.cfg.RejoinTimeout {
			r.core.GiveUp(r.seats[i].Player)
		}
	}
}

// abandoned reports whether the room should end for want of players:
// every player is gone and none rejoined within RejoinTimeout (at once
// once the match is over).
func (r *fogRoom) abandoned(now time.Duration) bool {
	if slices.Contains(r.gone[:r.players], false) {
		r.emptyUntil = 0
		return false
	}
	if r.emptyUntil == 0 {
		r.emptyUntil = now + r.cfg.RejoinTimeout
		r.log.Info("fogauth: every player is gone; waiting for a rejoin", "for", r.cfg.RejoinTimeout)
	}
	return r.core.Finished() || now >= r.emptyUntil
}

// endAll ends, at the settle timeout, the seats that did not acknowledge
// their final view in time: each other seat had its MatchEnd from the
// core at the tick it did (fogauth.Room.Finish).
func (r *fogRoom) endAll() {
	for i := range r.seats {
		if !r.gone[i] && !r.core.Converged(clientID(i)) {
			r.log.Warn("fogauth: seat did not acknowledge its final view in time", "player", r.seats[i].Player)
		}
	}
	tp, cp := r.tickTimes.Quantile(0.99), r.costTimes.Quantile(0.99)
	r.core.SetEndTiming(uint32(tp/time.Microsecond), uint32(cp/time.Microsecond))
	r.core.EndAll()
}

// end logs the match's end once every seat had its MatchEnd.
func (r *fogRoom) end() {
	tp, cp := r.tickTimes.Quantile(0.99), r.costTimes.Quantile(0.99)
	r.log.Info("fogauth: match over", "tick", r.core.Tick(), "tick_p99", tp, "cost_excl_sim_p99", cp, "sim_seed", r.simSeed)
	if r.cfg.OnEnd != nil {
		r.cfg.OnEnd(r.name, tp, cp)
	}
}

// HasReady implements room.Core.
func (r *fogRoom) HasReady() bool { return len(r.early) > 0 || r.core.HasReady() }

// Ready implements room.Core: the room's MatchStarts, then what the core
// produced (its MatchEnds among it).
func (r *fogRoom) Ready() room.Ready {
	r.out = append(r.out, r.early...)
	if r.core.HasReady() {
		r.coreReady = true
		for _, e := range r.core.Ready().Messages {
			lane := LaneState
			if e.Reliable {
				lane = LaneReliable
			} else {
				r.m.stateBytes.Add(uint64(len(e.Data)))
			}
			r.out = append(r.out, room.Envelope{Seat: int(e.To) - 1, Lane: lane, Data: e.Data})
		}
	}
	return room.Ready{Messages: r.out}
}

// Advance implements room.Core.
func (r *fogRoom) Advance() {
	if r.coreReady {
		r.coreReady = false
		r.core.Advance()
	}
	clear(r.early)
	clear(r.out)
	r.early, r.out = r.early[:0], r.out[:0]
}

// Status implements room.Core: it publishes the room's figures for the
// model's metrics, about once a second (room.StatusInterval).
func (r *fogRoom) Status(now time.Duration) room.Status {
	st := r.core.Stats()
	r.m.saturated.Add(st.Saturated - r.prev.Saturated)
	r.m.rejections.Add(st.Rejections - r.prev.Rejections)
	r.m.fogSkips.Add(st.FogSkips - r.prev.FogSkips)
	r.m.fogRecomputes.Add(st.FogRecomputes - r.prev.FogRecomputes)
	r.prev.Saturated, r.prev.Rejections, r.prev.FogSkips, r.prev.FogRecomputes = st.Saturated, st.Rejections, st.FogSkips, st.FogRecomputes
	var bytes uint64
	clients := 0
	for i := range r.seats {
		if cs, ok := r.core.ClientStats(clientID(i)); ok {
			bytes += cs.BytesSent
			clients++
		}
	}
	perClient := 0.0
	if clients > 0 {
		perClient = twmetrics.PerSecond(float64(bytes-min(r.lastBytes, bytes))/float64(clients), now-r.lastRefresh)
	}
	r.lastBytes, r.lastRefresh = bytes, now
	phase := "playing"
	if r.core.Finished() {
		phase = "settling"
	}
	pub := &status{Status: room.Status{Phase: phase, Tick: r.core.Tick(), FinalHash: finalHash(r.core.Game())}, bytesPerClient: perClient,
		tickP99: r.tickTimes.Quantile(0.99), costP99: r.costTimes.Quantile(0.99)}
	r.published.Store(pub)
	return pub.Status
}

// finalHash is the hosted game's state hash in hex, for the match's
// record, if the game has one (a StateHash method: the reference RTS
// does); "" otherwise.
func finalHash(g fogauth.Game) string {
	if h, ok := g.(interface{ StateHash() uint64 }); ok {
		return fmt.Sprintf("%016x", h.StateHash())
	}
	return ""
}
