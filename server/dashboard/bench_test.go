package dashboard

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// benchRooms are 100 playing rooms of 4 players, each reporting what a
// lockstep room does: 8 counters, a 128-point series per player, 64
// events.
func benchRooms() []server.RoomView {
	var out []server.RoomView
	for i := range 100 {
		rep := &room.Report{Events: make([]room.Event, 64)}
		for range 8 {
			rep.Counters = append(rep.Counters, room.Figure{Name: "counter", Value: 1})
		}
		for p := 1; p <= 4; p++ {
			rep.Series = append(rep.Series, room.Series{Name: "order_arrival", Player: p, Points: make([]room.Point, 128)})
		}
		v := server.RoomView{Name: fmt.Sprintf("room%03d", i), NetworkModel: "lockstep", Size: 4, Players: 4,
			Status: room.Status{Phase: "playing", Turns: make([]time.Duration, room.TurnHistory), Budget: time.Second / 30, Report: rep}}
		for p := 1; p <= 4; p++ {
			v.Seats = append(v.Seats, server.SeatView{Player: p, Conn: transport.Stats{RTT: 40 * time.Millisecond}})
		}
		out = append(out, v)
	}
	return out
}

// BenchmarkViewers is one dashboard interval (250 ms) of a server of
// 100 rooms watched by 10 viewers, each polling the list and one room
// twice a second (half a poll each per interval; they watch different
// rooms): the sample and the answers.
func BenchmarkViewers(b *testing.B) {
	views := benchRooms()
	d := New(func() []server.RoomView { return views }, Config{})
	mux := http.NewServeMux()
	d.Register(mux)
	for i := range 120 { // fill the histories
		d.Sample(time.Duration(i) * 250 * time.Millisecond)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		d.Sample(time.Duration(120+i) * 250 * time.Millisecond)
		for v := range 5 { // 10 viewers × 2 polls/s × 0.25 s
			for _, path := range []string{"/api/v1/rooms", fmt.Sprintf("/api/v1/rooms/room%03d", v)} {
				rec := httptest.NewRecorder()
				mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
			}
		}
	}
}
