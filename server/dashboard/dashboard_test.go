package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// fakeRooms is a server of n rooms of two players whose connections have
// sent 1000 bytes more at every call.
type fakeRooms struct {
	n, calls int
}

func (f *fakeRooms) views() []server.RoomView {
	f.calls++
	var out []server.RoomView
	for i := range f.n {
		v := server.RoomView{Name: fmt.Sprintf("r%03d", i), NetworkModel: "example", Size: 2, Players: 2, Age: time.Minute,
			Status: room.Status{Phase: "playing", Tick: uint64(f.calls), Budget: 50 * time.Millisecond, Turns: []time.Duration{time.Millisecond}, Report: &room.Report{
				Counters: []room.Figure{{Name: "widgets", Value: 7}},
				Series:   []room.Series{{Name: "wobble", Player: 1, Points: []room.Point{{Tick: 1, Value: 2, Flag: "late"}}}},
				Events:   []room.Event{{Tick: 1, Kind: "qos", Detail: "raised"}}}}}
		for p := 1; p <= 2; p++ {
			v.Seats = append(v.Seats, server.SeatView{Player: p, Conn: transport.Stats{RTT: time.Duration(p*10+f.calls) * time.Millisecond,
				RTTVar: time.Millisecond, LossPercent: 1, BytesSent: uint64(500 * f.calls)}})
		}
		v.Seats = append(v.Seats, server.SeatView{Spectator: true})
		out = append(out, v)
	}
	return out
}

func get(t *testing.T, h http.Handler, path string, into any) int {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code == http.StatusOK && into != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), into); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return rec.Code
}

func newTest(src *fakeRooms, cfg Config) (*Dashboard, *http.ServeMux) {
	d := New(src.views, cfg)
	mux := http.NewServeMux()
	d.Register(mux)
	return d, mux
}

// TestAPIFields checks the names the API promises, in the list and in a
// room, and the model's report passed through unchanged.
func TestAPIFields(t *testing.T) {
	src := &fakeRooms{n: 3}
	d, mux := newTest(src, Config{})
	d.Sample(0)
	d.Sample(time.Second)
	var list struct {
		Rooms []map[string]any `json:"rooms"`
	}
	if code := get(t, mux, "/api/v1/rooms", &list); code != 200 || len(list.Rooms) != 3 {
		t.Fatalf("list: %d, %d rooms", code, len(list.Rooms))
	}
	for _, k := range []string{"name", "network_model", "players", "tick", "state", "age_s", "bytes_per_s", "counters"} {
		if _, ok := list.Rooms[0][k]; !ok {
			t.Errorf("a listed room has no %q: %v", k, list.Rooms[0])
		}
	}
	if got := list.Rooms[0]["bytes_per_s"].(float64); got != 1000 { // two players, 500 bytes more each in a second
		t.Errorf("bytes_per_s = %v, want 1000", got)
	}
	var one RoomDetail
	if code := get(t, mux, "/api/v1/rooms/r001", &one); code != 200 {
		t.Fatalf("room: %d", code)
	}
	if one.Name != "r001" || len(one.PlayerSeries) != 2 || len(one.PlayerSeries[0].RTTHistory) != 2 {
		t.Fatalf("room: %+v", one)
	}
	if one.TickTiming.BudgetMs != 50 || len(one.TickTiming.TurnsMs) != 1 {
		t.Errorf("tick timing: %+v", one.TickTiming)
	}
	if len(one.Model.Series) != 1 || one.Model.Series[0].Points[0].Flag != "late" || one.Model.Events[0].Kind != "qos" || one.Counters[0].Name != "widgets" {
		t.Errorf("model report: %+v", one.Model)
	}
	if code := get(t, mux, "/api/v1/rooms/nope", nil); code != http.StatusNotFound {
		t.Errorf("unknown room: %d, want 404", code)
	}
	if code := get(t, mux, "/dashboard/", nil); code != 200 {
		t.Errorf("page: %d", code)
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != http.StatusFound || rec.Header().Get("Location") != "/dashboard/" {
		t.Errorf("/: %d to %q, want a redirect to /dashboard/", rec.Code, rec.Header().Get("Location"))
	}
}

// TestBounded samples a long match: each player's history stays at
// History, rooms that end are forgotten, and the answers are encoded
// once per sample whoever asks.
func TestBounded(t *testing.T) {
	src := &fakeRooms{n: 2}
	d, mux := newTest(src, Config{History: 60})
	for i := range 1000 {
		d.Sample(time.Duration(i) * 250 * time.Millisecond)
	}
	var one RoomDetail
	get(t, mux, "/api/v1/rooms/r000", &one)
	if n := len(one.PlayerSeries[0].RTTHistory); n != 60 {
		t.Fatalf("history holds %d samples, want 60", n)
	}
	if last := one.PlayerSeries[0].RTTHistory[59]; last.RTTMs != float64(10+1000) {
		t.Errorf("newest sample %v, want the last one", last)
	}
	for range 10 {
		get(t, mux, "/api/v1/rooms", nil)
		get(t, mux, "/api/v1/rooms/r000", nil)
	}
	if len(d.cache) != 2 {
		t.Errorf("cache holds %d answers, want 2", len(d.cache))
	}
	for range 100 {
		get(t, mux, fmt.Sprintf("/api/v1/rooms/x%d", src.calls), nil)
	}
	if len(d.cache) != 2 {
		t.Errorf("unknown rooms grew the cache to %d", len(d.cache))
	}
	src.n = 1
	d.Sample(time.Hour)
	if len(d.rooms) != 1 || get(t, mux, "/api/v1/rooms/r001", nil) != http.StatusNotFound {
		t.Errorf("an ended room is still there: %d rooms", len(d.rooms))
	}
}
