package dashboard

import (
	"net/url"

	"github.com/tickwire/tickwire/server/room"
)

// Rooms is the answer of GET /api/v1/rooms.
type Rooms struct {
	Rooms []RoomSummary `json:"rooms"`
}

// RoomSummary is one room of the list.
type RoomSummary struct {
	Name         string  `json:"name"`
	NetworkModel string  `json:"network_model"`
	MatchType    string  `json:"match_type,omitempty"`
	Players      int     `json:"players"`
	Size         int     `json:"size"`
	Spectators   int     `json:"spectators"`
	Tick         uint64  `json:"tick"`
	State        string  `json:"state"`
	AgeSeconds   float64 `json:"age_s"`
	BytesPerSec  float64 `json:"bytes_per_s"`
	// Counters are the model's own counters for the room (room.Report).
	Counters []room.Figure `json:"counters"`
}

// RoomDetail is the answer of GET /api/v1/rooms/{name}.
type RoomDetail struct {
	RoomSummary
	// PlayerSeries are the players' connection figures, by player id.
	PlayerSeries []PlayerSeries `json:"player_series"`
	// TickTiming is the room driver's processing time of its last turns
	// against the tick budget.
	TickTiming TickTiming `json:"tick_timing"`
	// Model is the model's own report: counters, series, events.
	Model room.Report `json:"model"`
	// Links are the room's documents (room.Report.Documents) by name,
	// each the path that serves it: "desync_report" once a lockstep
	// room's desync walk has ended.
	Links map[string]string `json:"links,omitempty"`
}

// PlayerSeries is one player's connection over the last samples.
type PlayerSeries struct {
	Player      int         `json:"player"`
	RTTMs       float64     `json:"rtt_ms"`
	JitterMs    float64     `json:"jitter_ms"` // the RTT's mean deviation
	LossPercent float64     `json:"loss_percent"`
	RTTHistory  []RTTSample `json:"rtt_history"` // oldest first
}

// RTTSample is one sample of a player's connection.
type RTTSample struct {
	AtMs        float64 `json:"at_ms"` // the dashboard's clock
	RTTMs       float64 `json:"rtt_ms"`
	JitterMs    float64 `json:"jitter_ms"`
	LossPercent float64 `json:"loss_percent"`
}

// TickTiming is the driver's turn times.
type TickTiming struct {
	BudgetMs float64   `json:"budget_ms"`
	TurnsMs  []float64 `json:"turns_ms"` // oldest first
}

// summary is rs's entry of the list.
func (rs *roomState) summary() RoomSummary {
	v := rs.view
	s := RoomSummary{Name: v.Name, NetworkModel: v.NetworkModel, MatchType: v.MatchType, Players: v.Players,
		Size: v.Size, Spectators: v.Spectators, Tick: v.Status.Tick, State: v.Status.Phase,
		AgeSeconds: v.Age.Seconds(), BytesPerSec: rs.rate, Counters: []room.Figure{}}
	if v.Status.Report != nil {
		s.Counters = append(s.Counters, v.Status.Report.Counters...)
	}
	return s
}

// detail is rs's detail.
func (rs *roomState) detail() RoomDetail {
	v := rs.view
	d := RoomDetail{RoomSummary: rs.summary(), PlayerSeries: []PlayerSeries{}}
	for _, s := range v.Seats {
		p := rs.players[s.Player]
		if s.Spectator || p == nil {
			continue
		}
		d.PlayerSeries = append(d.PlayerSeries, PlayerSeries{Player: s.Player, RTTMs: ms(s.Conn.RTT),
			JitterMs: ms(s.Conn.RTTVar), LossPercent: s.Conn.LossPercent, RTTHistory: p.rtt.AppendTo(nil)})
	}
	d.TickTiming = TickTiming{BudgetMs: ms(v.Status.Budget), TurnsMs: make([]float64, 0, len(v.Status.Turns))}
	for _, t := range v.Status.Turns {
		d.TickTiming.TurnsMs = append(d.TickTiming.TurnsMs, ms(t))
	}
	if v.Status.Report != nil {
		d.Model = *v.Status.Report
		for _, doc := range d.Model.Documents {
			if d.Links == nil {
				d.Links = map[string]string{}
			}
			d.Links[doc.Name] = "/api/v1/rooms/" + url.PathEscape(v.Name) + "/" + url.PathEscape(doc.Name)
		}
	}
	return d
}

// document is a room's document (room.Report.Documents) named doc.
func (d *Dashboard) document(name, doc string) ([]byte, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rs := d.rooms[name]
	if rs == nil || rs.view.Status.Report == nil {
		return nil, false
	}
	for _, x := range rs.view.Status.Report.Documents {
		if x.Name == doc {
			return x.JSON, true
		}
	}
	return nil, false
}

// list is the answer of GET /api/v1/rooms.
func (d *Dashboard) list() (any, bool) {
	out := Rooms{Rooms: make([]RoomSummary, 0, len(d.order))}
	for _, name := range d.order {
		out.Rooms = append(out.Rooms, d.rooms[name].summary())
	}
	return out, true
}

// room is the answer of GET /api/v1/rooms/{name}.
func (d *Dashboard) room(name string) (any, bool) {
	rs := d.rooms[name]
	if rs == nil {
		return nil, false
	}
	return rs.detail(), true
}
