package statesync_test

import (
	"testing"

	"github.com/tickwire/tickwire/statesync"
)

func TestRoomStaysInSync(t *testing.T) {
	r := newRoom(t, 1, statesync.Config{}, 300)
	for id := uint32(1); id <= 20; id++ {
		r.join(id)
		r.frames(1)
	}
	r.frames(200)
	st := r.srv.Stats()
	t.Logf("stats %+v", st)
	if ok, bad := r.inSync(); !ok {
		t.Fatalf("out of sync: %v", bad)
	}
	if got := len(r.srv.ActiveClients()); got != 20 {
		t.Fatalf("%d ACTIVE clients, want 20", got)
	}
	if st.Desyncs != 0 {
		t.Fatalf("%d desyncs in a healthy room", st.Desyncs)
	}
}
