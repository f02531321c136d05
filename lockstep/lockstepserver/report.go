package lockstepserver

import (
	"fmt"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/server/room"
)

// Sizes of a room's dashboard rings: arrivals kept per player, events
// kept per room.
const (
	arrivalHistory = 128
	eventHistory   = 64
	onTimeWindow   = 256 // ticks between a submission and its frame, at most
)

// ArrivalSeries is the name of the series of order arrivals relative to
// their tick's deadline (milliseconds, negative: early), flagged "late"
// for a submission that missed its tick and "idle" for a tick the
// player was given an Idle for.
const ArrivalSeries = "order_arrival"

// report is a lockstep room's figures for the dashboard (room.Reporter),
// owned by the room's loop.
type report struct {
	arrivals                 []room.Ring[room.Point] // by player index
	onTime                   [][onTimeWindow]uint64  // by player index, tick%onTimeWindow: tick+1 of an on-time submission
	events                   room.Ring[room.Event]
	late, strikes, idleTotal int
	syncChecks, syncReports  int
	desyncs, qos, removals   int
	desyncReport             []byte // the last desync report's document
}

func newReport(size int) report {
	r := report{arrivals: make([]room.Ring[room.Point], size), onTime: make([][onTimeWindow]uint64, size), events: room.NewRing[room.Event](eventHistory)}
	for i := range r.arrivals {
		r.arrivals[i] = room.NewRing[room.Point](arrivalHistory)
	}
	return r
}

// arrived records a message of seat i that arrived at "at".
func (r *lockstepRoom) arrived(i int, at time.Duration, m msg.Message) {
	switch m := m.(type) {
	case *msg.OrderSubmit:
		if r.core.Phase() != relay.PhasePlaying {
			return
		}
		// One after its deadline missed its tick: the core reports it
		// (LateSubmission), which records it flagged.
		if d := at - r.due(m.Tick); d <= 0 {
			r.rep.arrivals[i].Push(room.Point{Tick: m.Tick, Value: ms(d)})
			r.rep.onTime[i][m.Tick%onTimeWindow] = m.Tick + 1
		}
	case *msg.SyncHash:
		r.rep.syncReports++
	}
}

// recordEvent records a core event.
func (r *lockstepRoom) recordEvent(ev relay.Event) {
	rep := &r.rep
	switch e := ev.(type) {
	case relay.LateSubmission:
		rep.late++
		if i := int(e.Player) - 1; i >= 0 && i < r.size {
			rep.arrivals[i].Push(room.Point{Tick: e.Tick, Value: ms(e.LateBy), Flag: "late"})
		}
	case relay.Strike:
		rep.strikes++
		rep.events.Push(room.Event{Tick: r.core.NextTick(), Player: int(e.Player), Kind: "strike", Detail: fmt.Sprintf("strike %d: %s", e.Strikes, e.Reason)})
	case relay.PlayerRemoved:
		rep.removals++
		rep.events.Push(room.Event{Tick: e.AtTick, Player: int(e.Player), Kind: "removal", Detail: fmt.Sprint(e.Reason)})
	case relay.Desync:
		rep.desyncs++
		rep.events.Push(room.Event{Tick: e.Tick, Kind: "desync", Detail: fmt.Sprintf("%d state hashes disagree", len(e.Hashes))})
	case relay.QosAdjustmentEvent:
		rep.qos++
		rep.events.Push(room.Event{Tick: e.Tick, Kind: "qos", Detail: fmt.Sprintf("%s: run-ahead %d→%d, deadline %v→%v",
			e.Reason, e.OldRunAhead, e.NewRunAhead, e.OldDeadline, e.NewDeadline)})
	}
}

// sent records the frames of a Ready: sync checks asked for, and the
// Idle substitutions: the players in the match whose submission for the
// frame's tick did not arrive in time.
func (r *lockstepRoom) sent(m msg.Message) {
	f, ok := m.(*msg.TickFrame)
	if !ok {
		return
	}
	if f.Flags&msg.FlagSyncRequest != 0 {
		r.rep.syncChecks++
	}
	for i := range r.rep.onTime {
		if m := r.members[i]; m.gone || m.removed || r.rep.onTime[i][f.Tick%onTimeWindow] == f.Tick+1 {
			continue
		}
		r.rep.idleTotal++
		r.rep.arrivals[i].Push(room.Point{Tick: f.Tick, Flag: "idle"})
	}
}

// Report implements room.Reporter.
func (r *lockstepRoom) Report(time.Duration) room.Report {
	rep := &r.rep
	out := room.Report{Counters: []room.Figure{
		{Name: "late_orders", Value: float64(rep.late)},
		{Name: "idle_substitutions", Value: float64(rep.idleTotal)},
		{Name: "strikes", Value: float64(rep.strikes)},
		{Name: "sync_checks", Value: float64(rep.syncChecks)},
		{Name: "sync_reports", Value: float64(rep.syncReports)},
		{Name: "desyncs", Value: float64(rep.desyncs)},
		{Name: "qos_adjustments", Value: float64(rep.qos)},
		{Name: "removals", Value: float64(rep.removals)},
	}}
	for i := range rep.arrivals {
		out.Series = append(out.Series, room.Series{Name: ArrivalSeries, Player: i + 1, Unit: "ms from deadline",
			Points: rep.arrivals[i].AppendTo(nil)})
	}
	out.Events = rep.events.AppendTo(nil)
	if rep.desyncReport != nil {
		out.Documents = []room.Document{{Name: DesyncReportDoc, JSON: rep.desyncReport}}
	}
	return out
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
