package predict_test

import (
	"errors"
	"testing"

	"github.com/tickwire/tickwire/predict"
)

// TestServerRoomFullAtMaxPlayers: a room takes exactly MaxPlayers
// players; the next one is refused with ErrRoomFull.
func TestServerRoomFullAtMaxPlayers(t *testing.T) {
	srv := newServer(t, predict.ServerConfig{MaxPlayers: 3})
	if err := srv.Join(0, 3); err != nil {
		t.Fatalf("the third of three players: %v", err)
	}
	if err := srv.Join(0, 4); !errors.Is(err, predict.ErrRoomFull) {
		t.Fatalf("a fourth of three: %v, want ErrRoomFull", err)
	}
}

// TestServerCatchUpBounded: a server driven far behind schedule runs
// exactly MaxCatchUp ticks in one Tick and slips the rest, then runs on
// time.
func TestServerCatchUpBounded(t *testing.T) {
	srv := newServer(t, predict.ServerConfig{MaxCatchUp: 4})
	srv.Tick(100 * tick)
	st := srv.Stats()
	if st.Ticks != 4 || srv.ServerTick() != 4 {
		t.Fatalf("%d ticks run (server tick %d), want MaxCatchUp = 4", st.Ticks, srv.ServerTick())
	}
	// Tick 5 was due at 5 ticks: 96 ticks behind now, counting it; the
	// schedule moves them on, so the next tick is due one interval after now.
	if st.Slipped != 96 || srv.NextDeadline() != 101*tick {
		t.Fatalf("slipped %d, next deadline %v; want 96 and %v", st.Slipped, srv.NextDeadline(), 101*tick)
	}
	srv.Tick(srv.NextDeadline())
	if got := srv.Stats().Ticks; got != 5 {
		t.Errorf("%d ticks after the slip, want 5", got)
	}
}
