package lockstepserver

import (
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
)

// lockstepRoom is one lockstep game's core for the room driver: a relay
// core and its seats (seat i plays as player i+1).
type lockstepRoom struct {
	l        *Lockstep
	name     string
	size     int
	log      *slog.Logger
	clock    func() time.Duration
	counters *room.Counters
	core     *relay.Core
	members  []member
	gone     int              // members gone or removed
	notices  []msg.LateNotice // by player index, for this Ready
	late     []bool           // a notice waits, by player index
	arena    []byte           // this Ready's encoded messages
	out      []room.Envelope  // this Ready's messages
	closing  []room.Closing   // this Ready's removed players
	encoding bool             // an encode failure was logged
	rep      report           // the dashboard's figures (room.Reporter)
	feeds    map[int]*feed    // observers' delay lines, by seat
	watching int              // observer seats open: broadcasts go to the players' seats only
	replay   *matchReplay     // nil: not recorded
	agreed   uint64           // the last sync hash every player agreed on
	haveHash bool             // agreed is set
}

// member is a seat of a lockstep room.
type member struct {
	id            protocol.PlayerID
	gone, removed bool // connection ended (or closed); removed from the match
}

// HoldInbound implements room.InboundHolder: while the game plays,
// messages wait for the next deadline. Before play the seed exchange and
// calibration answer messages as they come.
func (r *lockstepRoom) HoldInbound() bool { return r.core.Phase() == relay.PhasePlaying }

// Handle implements room.Core: one inbound message or a seat's end.
func (r *lockstepRoom) Handle(now time.Duration, in *room.Inbound) {
	switch {
	case in.Joined != nil:
		r.joined(now, in)
		return
	case in.Seat >= r.size:
		r.fromObserver(now, in)
		return
	}
	m := &r.members[in.Seat]
	if in.Err != nil {
		r.disconnected(now, m, in.Err)
		return
	}
	dm, err := msg.Codec{}.Decode(in.Msg.Data)
	if err != nil {
		r.l.c.countMalformed(err)
		return
	}
	if m.removed {
		return
	}
	r.arrived(in.Seat, in.At, dm)
	if err := r.core.Step(in.At, m.id, dm); err != nil {
		r.l.c.countRejected(err)
		r.log.Debug("relay: message refused", "player", m.id, "type", dm.Type(), "err", err)
	}
}

// disconnected handles a connection that ended: the player leaves the
// match (at a scheduled tick during play, so every client removes it on
// the same tick).
func (r *lockstepRoom) disconnected(now time.Duration, m *member, err error) {
	if m.gone {
		return
	}
	m.gone = true
	r.gone++
	r.log.Info("relay: player disconnected", "player", m.id, "err", err)
	r.lost(now, m, err)
}

// Tick implements room.Core.
func (r *lockstepRoom) Tick(now time.Duration) {
	r.core.Tick(now)
	r.startObservers(now)
}

// HasReady implements room.Core.
func (r *lockstepRoom) HasReady() bool {
	return r.core.HasReady() || len(r.closing) > 0 || (r.over() && r.feedsHold())
}

// Ready implements room.Core: the core's messages encoded, its events
// counted, a LateNotice for each player reported late, and the players
// it removed to close.
func (r *lockstepRoom) Ready() room.Ready {
	rd := r.core.Ready()
	for _, ev := range rd.Events {
		r.event(ev)
	}
	now := r.clock()
	for _, e := range rd.Messages {
		if f, ok := e.Msg.(*msg.TickFrame); ok {
			r.l.c.lateness.Observe(max(now-r.due(f.Tick), 0).Seconds())
			r.replay.frame(f)
		}
		r.sent(e.Msg)
		r.route(e)
	}
	r.releaseFeeds(r.over())
	r.addNotices()
	for i := range r.members {
		if m := &r.members[i]; m.removed && !m.gone {
			m.gone = true
			r.gone++
			r.closing = append(r.closing, room.Closing{Seat: i, Reason: "removed from the match"})
		}
	}
	return room.Ready{Messages: r.out, Close: r.closing}
}

// emit encodes m for env's receivers and returns its bytes (nil if it
// did not encode).
func (r *lockstepRoom) emit(env room.Envelope, m msg.Message) []byte {
	start := len(r.arena)
	b, err := msg.Codec{}.Append(r.arena, m)
	if err != nil {
		r.counters.SendErrors[room.SendEncode].Add(1)
		if !r.encoding {
			r.encoding = true
			r.log.Warn("relay: message did not encode (further failures are only counted)", "type", m.Type(), "err", err)
		}
		return nil
	}
	r.arena = b
	env.Lane, env.Data = lanes.Of(msg.IsSample(m)), b[start:len(b):len(b)]
	r.out = append(r.out, env)
	return env.Data
}

// addNotices tells each player whose submissions this Ready reported
// late about the latest one and its strikes (the player-facing timing
// feedback; at most one notice per player per Ready).
func (r *lockstepRoom) addNotices() {
	for i, late := range r.late {
		if !late {
			continue
		}
		r.late[i] = false
		n := &r.notices[i]
		if p, ok := r.core.Player(protocol.PlayerID(i + 1)); ok {
			n.Strikes = uint16(min(p.Strikes, math.MaxUint16))
		}
		r.emit(room.Envelope{Seat: i}, n)
	}
}

// Advance implements room.Core.
func (r *lockstepRoom) Advance() {
	r.core.Advance()
	clear(r.out)
	r.out, r.arena, r.closing = r.out[:0], r.arena[:0], r.closing[:0]
}

// due is when tick k's frame is scheduled: its window's end plus the
// tick deadline.
func (r *lockstepRoom) due(k uint64) time.Duration {
	return r.core.Start() + time.Duration(k+1)*r.core.TickInterval() + r.core.Deadline()
}

// event counts, logs and forwards a core event.
func (r *lockstepRoom) event(ev relay.Event) {
	r.l.c.count(ev)
	r.recordEvent(ev)
	r.replay.event(ev)
	switch e := ev.(type) {
	case relay.LateSubmission:
		if i := int(e.Player) - 1; i >= 0 && i < r.size {
			r.late[i] = true
			r.notices[i] = msg.LateNotice{Tick: e.Tick, LateByUs: uint32(min(max(e.LateBy, 0)/time.Microsecond, math.MaxUint32))}
		}
	case relay.PlayerRemoved:
		if i := int(e.Player) - 1; i >= 0 && i < r.size {
			r.members[i].removed = true
		}
		r.log.Info("relay: player removed", "player", e.Player, "tick", e.AtTick, "reason", e.Reason)
	case relay.SyncAgreed:
		r.agreed, r.haveHash = e.Hash, true
	case relay.Desync:
		r.log.Warn("relay: desync", "tick", e.Tick)
	case relay.DesyncDiagnosed:
		r.diagnosed(e)
	case relay.QosAdjustmentEvent:
		r.log.Info("relay: timing adjusted", "tick", e.Tick, "run_ahead", e.NewRunAhead, "deadline", e.NewDeadline, "reason", e.Reason)
	case relay.SeedAgreed:
		r.log.Info("relay: game seed agreed", "start", e.Start)
	case relay.TransferAborted:
		if e.Observer {
			r.observerAborted(e.To)
		}
	case relay.DonorFailed:
		r.log.Info("relay: snapshot donor failed", "to", e.To, "donor", e.Donor, "tick", e.Tick, "reason", e.Reason)
	case relay.PlayerRejoined:
		r.log.Info("relay: player caught up", "player", e.Player, "tick", e.Tick)
	}
	if r.l.cfg.OnEvent != nil {
		r.l.cfg.OnEvent(r.name, ev)
	}
}

// Next implements room.Core.
func (r *lockstepRoom) Next() (time.Duration, bool) { return r.core.NextDeadline() }

// Done implements room.Core: the game ended or every seat is gone.
func (r *lockstepRoom) Done() bool { return r.over() && !r.feedsHold() }

// over reports whether the match is over: it ended, or every player is
// gone and none may come back (a lost player may, until its deadline).
// The observers' delay lines are then flushed before the room ends.
func (r *lockstepRoom) over() bool {
	return r.core.Phase() == relay.PhaseEnded || (r.gone == r.size && !r.core.Reconnecting())
}

// Status implements room.Core.
func (r *lockstepRoom) Status(time.Duration) room.Status {
	st := room.Status{Phase: r.core.Phase().String(), Tick: r.core.NextTick()}
	if r.haveHash {
		st.FinalHash = fmt.Sprintf("%016x", r.agreed)
	}
	return st
}

// End implements room.Core.
func (r *lockstepRoom) End(time.Duration) { r.replay.finish(r.core.NextTick()) }
