package syncclient_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/internal/roomtest"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/statesync/syncclient"
	"github.com/tickwire/tickwire/transport"
)

// TestSilentServerEndsBot: a server that seats the bot, sends one
// message and then nothing more, without closing (roomtest.Silent: the
// transport stays up), cannot hold it: the bot ends after
// join.DefaultIdleTimeout, in virtual time, with join.ErrIdle.
func TestSilentServerEndsBot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dial := roomtest.Silent(t, join.JoinAccepted{Player: 1, RoomSize: 1, TickRate: 20, NetworkModel: room.StateSync}, []byte{0xff})
		began := time.Now()
		res := syncclient.Play(t.Context(), syncclient.Run{Players: 1, RoomSize: 1, Room: "silent", Frames: 100,
			Dial: func(ctx context.Context, _ int) (*transport.Conn, error) { return dial(ctx) }})
		waited := time.Since(began)
		if err := res[0].Err; !errors.Is(err, join.ErrIdle) {
			t.Errorf("bot error %v, want join.ErrIdle", err)
		}
		if idle := join.DefaultIdleTimeout; waited < idle || waited > idle+idle/4 {
			t.Errorf("the bot ended after %v of silence, want %v", waited, idle)
		}
	})
}
