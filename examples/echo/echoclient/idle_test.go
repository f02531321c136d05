package echoclient_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/examples/echo"
	"github.com/tickwire/tickwire/examples/echo/echoclient"
	"github.com/tickwire/tickwire/internal/roomtest"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/transport"
)

// TestSilentServerEndsBot: a server that seats the bot, starts the room
// and then echoes nothing, without closing (roomtest.Silent: the
// transport stays up), cannot hold it: the bot ends after
// join.DefaultIdleTimeout, in virtual time, and says why.
func TestSilentServerEndsBot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start, err := (&echo.Start{Players: 1}).Append(nil)
		if err != nil {
			t.Fatal(err)
		}
		dial := roomtest.Silent(t, join.JoinAccepted{Player: 1, RoomSize: 1, NetworkModel: echo.ModelName}, start)
		began := time.Now()
		rep := echoclient.RunBots(t.Context(), echoclient.BotRun{Players: 1, Room: "silent", Messages: 3,
			Dial: func(ctx context.Context, _ int) (*transport.Conn, error) { return dial(ctx) }})
		waited := time.Since(began)
		if p := rep.Players[0]; rep.AllEchoed || !strings.Contains(p.Error, join.ErrIdle.Error()) {
			t.Errorf("all echoed %v, bot error %q; want %q", rep.AllEchoed, p.Error, join.ErrIdle)
		}
		if idle := join.DefaultIdleTimeout; waited < idle || waited > idle+idle/4 {
			t.Errorf("the bot ended after %v of silence, want %v", waited, idle)
		}
	})
}
