package netlayer_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/internal/roomtest"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
)

// TestSilentServerEndsRemote: a server that seats the client, sends one
// message of the match and then nothing more, without closing
// (roomtest.Silent: the transport stays up), cannot hold the Remote:
// Poll reports join.ErrIdle after join.DefaultIdleTimeout, in virtual
// time.
func TestSilentServerEndsRemote(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dial := roomtest.Silent(t, join.JoinAccepted{Player: 1, RoomSize: 1, TickRate: 30, NetworkModel: room.Prediction}, []byte{0xff})
		conn, err := dial(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		r, err := netlayer.Join(t.Context(), conn, "silent", 1)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		began := time.Now()
		got := 0
		for {
			err = r.Poll(0, func([]byte) { got++ })
			if err != nil {
				break
			}
			<-r.Arrived()
		}
		waited := time.Since(began)
		if got != 1 || !errors.Is(err, join.ErrIdle) {
			t.Errorf("%d messages, then %v; want 1 and join.ErrIdle", got, err)
		}
		if idle := join.DefaultIdleTimeout; waited < idle || waited > idle+idle/4 {
			t.Errorf("the Remote ended after %v of silence, want %v", waited, idle)
		}
	})
}
