package lockstepserver

import (
	"errors"
	"math"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// rejoins reports whether the room takes rejoins.
func (r *lockstepRoom) rejoins() bool { return r.l.cfg.Relay.Rejoin.Enabled }

// lost handles the end of a player's connection: a player that closed it
// gracefully or said it is done (join.Leave: room.ErrLeft) left the
// match; one whose connection was lost (a timeout, a rejoin from another
// connection) is away and may come back, when the room takes rejoins.
func (r *lockstepRoom) lost(now time.Duration, m *member, err error) {
	if r.rejoins() && !errors.Is(err, transport.ErrPeerClosed) && !errors.Is(err, room.ErrLeft) {
		r.core.Disconnected(now, m.id)
		return
	}
	r.core.Leave(now, m.id)
}

// joined takes a connection seated while the room plays: a player back in
// its seat, whose reconnection the core runs, or an observer, which
// starts once it said hello.
func (r *lockstepRoom) joined(now time.Duration, in *room.Inbound) {
	if in.Seat >= r.size {
		r.feeds[in.Seat] = &feed{}
		r.watching++
		r.log.Info("relay: observer joins", "seat", in.Seat)
		return
	}
	m := &r.members[in.Seat]
	if m.gone {
		m.gone = false
		r.gone--
	}
	if err := r.core.Rejoin(now, m.id); err != nil {
		r.log.Info("relay: rejoin refused", "player", m.id, "err", err)
		r.closing = append(r.closing, room.Closing{Seat: in.Seat, Reason: "cannot rejoin: " + err.Error()})
		return
	}
	r.log.Info("relay: player rejoins", "player", m.id, "tick", r.core.NextTick())
}

// fromObserver handles an observer's message or end.
func (r *lockstepRoom) fromObserver(now time.Duration, in *room.Inbound) {
	id := observerID(in.Seat)
	if in.Err != nil {
		r.watching--
		delete(r.feeds, in.Seat)
		r.core.ObserverGone(now, id)
		return
	}
	f := r.feeds[in.Seat]
	if f == nil {
		return
	}
	dm, err := msg.Codec{}.Decode(in.Msg.Data)
	if err != nil {
		r.l.c.countMalformed(err)
		return
	}
	if h, ok := dm.(*msg.ObserverHello); ok && !f.asked {
		f.asked = true
		f.delay = uint64(min(max(h.DelayTicks, r.l.cfg.DelayTicks), MaxDelayTicks))
		r.startObservers(in.At)
		return
	}
	err = r.core.StepObserver(in.At, id, dm)
	if err != nil {
		r.l.c.countRejected(err)
		r.log.Debug("relay: observer message refused", "seat", in.Seat, "type", dm.Type(), "err", err)
	}
}

// startObservers starts the transfers of the observers that said hello,
// once the match plays (a room may be seated and still calibrating).
func (r *lockstepRoom) startObservers(now time.Duration) {
	if r.core.Phase() != relay.PhasePlaying {
		return
	}
	for seat, f := range r.feeds {
		if !f.asked || f.hello {
			continue
		}
		f.hello = true
		if err := r.core.Observe(now, observerID(seat), uint32(f.delay)); err != nil {
			r.log.Info("relay: observer refused", "seat", seat, "err", err)
			delete(r.feeds, seat)
			r.closing = append(r.closing, room.Closing{Seat: seat, Reason: "cannot observe: " + err.Error()})
		}
	}
}

// observerID is the core's id of the observer in seat i: above every
// player's.
func observerID(seat int) protocol.PlayerID { return protocol.PlayerID(seat + 1) }

// route sends one of the core's messages: to the players, and through
// the delay lines of the observers that started.
func (r *lockstepRoom) route(e relay.Envelope) {
	switch {
	case e.Broadcast && r.watching == 0:
		r.emit(room.Envelope{Broadcast: true}, e.Msg)
	case e.Broadcast:
		b := r.emit(room.Envelope{Seat: 0}, e.Msg)
		for i := 1; i < r.size && b != nil; i++ {
			r.out = append(r.out, room.Envelope{Seat: i, Lane: lanes.Of(msg.IsSample(e.Msg)), Data: b})
		}
		if tick, delayed := feedTick(e.Msg); delayed && b != nil {
			for seat, f := range r.feeds {
				if f.hello {
					r.feedPush(seat, f, tick, b)
				}
			}
		}
	case int(e.To) >= 1 && int(e.To) <= r.size:
		r.emit(room.Envelope{Seat: int(e.To) - 1}, e.Msg)
	default:
		seat := int(e.To) - 1
		f := r.feeds[seat]
		if f == nil {
			return
		}
		tick, delayed := feedTick(e.Msg)
		if !delayed {
			r.emit(room.Envelope{Seat: seat}, e.Msg)
			return
		}
		start := len(r.arena)
		if b := r.emit(room.Envelope{Seat: seat}, e.Msg); b != nil {
			r.out = r.out[:len(r.out)-1] // it waits in the line instead
			r.feedPush(seat, f, tick, b)
			r.arena = r.arena[:start]
		}
	}
}

// feedPush queues data for an observer, closing one whose line is full.
func (r *lockstepRoom) feedPush(seat int, f *feed, tick uint64, data []byte) {
	if !f.push(tick, data) {
		delete(r.feeds, seat)
		r.core.ObserverGone(r.clock(), observerID(seat))
		r.closing = append(r.closing, room.Closing{Seat: seat, Reason: "observer feed too far behind"})
	}
}

// releaseFeeds sends what the observers' delay lines hold for the ticks
// broadcast so far, or everything once the match is over (all of it is
// history then).
func (r *lockstepRoom) releaseFeeds(over bool) {
	next := r.core.NextTick()
	if next == 0 {
		return
	}
	last := next - 1
	if over {
		last = math.MaxUint64 - MaxDelayTicks
	}
	for seat, f := range r.feeds {
		f.release(last, func(b []byte) {
			r.out = append(r.out, room.Envelope{Seat: seat, Lane: lanes.Orders, Data: b})
		})
	}
}

// feedsHold reports whether a delay line holds messages.
func (r *lockstepRoom) feedsHold() bool {
	for _, f := range r.feeds {
		if len(f.items) > 0 {
			return true
		}
	}
	return false
}

// observerAborted closes an observer no donor could serve.
func (r *lockstepRoom) observerAborted(id protocol.PlayerID) {
	seat := int(id) - 1
	if _, ok := r.feeds[seat]; ok {
		delete(r.feeds, seat)
		r.closing = append(r.closing, room.Closing{Seat: seat, Reason: "no donor could send a snapshot"})
	}
}
