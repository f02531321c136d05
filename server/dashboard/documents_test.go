package dashboard

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
)

// TestDocumentLink: a room's document (a desync report) is linked from
// its detail and served at the link; a room without one has no link, and
// an unknown document is a 404.
func TestDocumentLink(t *testing.T) {
	doc := []byte(`{"tick":60}` + "\n")
	views := func() []server.RoomView {
		return []server.RoomView{
			{Name: "with report", NetworkModel: "lockstep", Size: 2, Age: time.Second,
				Status: room.Status{Report: &room.Report{Documents: []room.Document{{Name: "desync_report", JSON: doc}}}}},
			{Name: "plain", NetworkModel: "lockstep", Size: 2, Age: time.Second, Status: room.Status{Report: &room.Report{}}},
		}
	}
	d := New(views, Config{})
	mux := http.NewServeMux()
	d.Register(mux)
	d.Sample(time.Second)
	var det RoomDetail
	if code := get(t, mux, "/api/v1/rooms/with%20report", &det); code != http.StatusOK {
		t.Fatalf("detail: %d", code)
	}
	link := det.Links["desync_report"]
	if link != "/api/v1/rooms/with%20report/desync_report" {
		t.Fatalf("links %v", det.Links)
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", link, nil))
	if rec.Code != http.StatusOK || rec.Body.String() != string(doc) {
		t.Fatalf("GET %s: %d %q", link, rec.Code, rec.Body.String())
	}
	var plain RoomDetail
	get(t, mux, "/api/v1/rooms/plain", &plain)
	if plain.Links != nil {
		t.Errorf("a room without documents links %v", plain.Links)
	}
	if code := get(t, mux, "/api/v1/rooms/plain/desync_report", nil); code != http.StatusNotFound {
		t.Errorf("a missing document: %d", code)
	}
}
