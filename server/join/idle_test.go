package join_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/internal/roomtest"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/transport"
)

// TestIdleWatchArmed: a seat waiting for its room to fill is never
// idle, however long the server is silent; once armed, the watch closes
// the connection after its timeout of silence, and Err says why.
func TestIdleWatchArmed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dial := roomtest.Silent(t, join.JoinAccepted{Player: 1, RoomSize: 2, TickRate: 20})
		conn, err := dial(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := join.Join(t.Context(), conn, join.Request{Room: "lobby", RoomSize: 2}); err != nil {
			t.Fatal(err)
		}
		const idle = 5 * time.Second
		w := join.WatchIdle(conn, idle)
		defer w.Stop()
		time.Sleep(10 * idle)
		if conn.State() != transport.StateConnected {
			t.Fatalf("unarmed: the connection %v after %v of silence", conn.State(), 10*idle)
		}
		w.Arm()
		armed := time.Now()
		_, err = conn.Receive(t.Context())
		if waited := time.Since(armed); waited < idle || waited > idle+idle/4 || !errors.Is(w.Err(err), join.ErrIdle) {
			t.Fatalf("armed: %v after %v, want join.ErrIdle after %v", w.Err(err), waited, idle)
		}
		if err := w.Err(nil); err != nil {
			t.Fatalf("Err(nil) = %v", err)
		}
	})
}
