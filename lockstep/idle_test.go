package lockstep_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/internal/roomtest"
	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/server/join"
)

// TestSilentRelayEndsClient: a relay that seats the client, starts
// calibrating its full room and then never sends another message nor
// closes (roomtest.Silent: the transport stays up) cannot hold it: the
// client ends on its idle timeout, in virtual time, and says why.
func TestSilentRelayEndsClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ping, err := msg.Codec{}.Append(nil, &msg.CalibrationPing{Seq: 1})
		if err != nil {
			t.Fatal(err)
		}
		dial := roomtest.Silent(t, join.JoinAccepted{Player: 1, RoomSize: 1, TickRate: 20, NetworkModel: lockstep.NetworkModelName}, ping)
		conn, err := dial(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		const idle = 5 * time.Second
		rc, err := lockstep.JoinRelay(t.Context(), conn, "silent", 1, lockstep.RelayClientConfig{IdleTimeout: idle})
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		began := time.Now()
		for rc.Status() < lockstep.StatusEnded {
			if err := rc.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		if waited := time.Since(began); waited < idle || waited > idle+idle/4 {
			t.Errorf("the client ended after %v of silence, want %v", waited, idle)
		}
		if err := rc.Err(); rc.Status() != lockstep.StatusDisconnected || !errors.Is(err, join.ErrIdle) {
			t.Errorf("status %v, error %v, want disconnected by join.ErrIdle", rc.Status(), err)
		}
	})
}
