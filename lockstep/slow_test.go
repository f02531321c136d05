package lockstep_test

import (
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/internal/roomtest"
	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// deaf is a socket that, while deaf, drops every datagram it receives:
// its connection keeps sending (heartbeats) but takes and acknowledges
// nothing, as a client whose receive path is stuck.
type deaf struct {
	net.PacketConn
	on atomic.Bool
}

func (d *deaf) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		n, addr, err := d.PacketConn.ReadFrom(b)
		if err != nil || !d.on.Load() {
			return n, addr, err
		}
	}
}

// TestSlowClientDropped: the room driver's backpressure policy in a
// lockstep room. One of three players stops taking what the relay sends
// after 60 ticks: the server drops it once it has acknowledged nothing
// for room.SendGrace (the relay's own frozen-client rule set beyond it),
// counts it and logs it once, and the client, hearing again, reads the policy's
// reason; the relay removes the player on one tick for everyone and the
// other two play on in sync.
func TestSlowClientDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &roomtest.Records{}
		// The relay's own rule for a client that stops (FrozenTimeout, 3 s
		// by default) would remove it first: this test is the driver's.
		lc := lockstepserver.Config{}
		lc.Relay.FrozenTimeout = time.Minute
		rn := startRelay(t, server.Config{Logger: slog.New(logs)}, lc)
		defer rn.close()
		ctx := t.Context()
		const n, ticks, slow, after = 3, 400, 2, 60
		out := make(chan result, n)
		for i := range n {
			go func() {
				pc, err := rn.mn.ListenPacket("")
				if err != nil {
					out <- result{err: err}
					return
				}
				d := &deaf{PacketConn: pc}
				conn, err := transport.Dial(ctx, d, rn.l.Addr(), lanes.TransportConfig())
				if err != nil {
					out <- result{err: err}
					return
				}
				rc, err := lockstep.JoinRelay(ctx, conn, "slow", n, lockstep.RelayClientConfig{Rand: fixedRand(i)})
				if err != nil {
					out <- result{err: err}
					return
				}
				defer rc.Close()
				if rc.PlayerID() != slow {
					out <- playGame(ctx, rc, ticks)
					return
				}
				r := playGame(ctx, rc, after)
				d.on.Store(true)
				for rn.srv.Stats().Models[0].TooSlow == 0 {
					time.Sleep(10 * time.Millisecond)
				}
				d.on.Store(false) // the client hears again: the server's reason
				for rc.Status() < lockstep.StatusEnded {
					time.Sleep(10 * time.Millisecond)
				}
				r.err = rc.Err()
				out <- r
			}()
		}
		var stayed []result
		for range n {
			r := <-out
			if r.id == slow {
				if r.err == nil || !strings.Contains(r.err.Error(), room.ErrTooSlow.Error()) {
					t.Errorf("the slow client ended with %v, want the server's reason %q", r.err, room.ErrTooSlow)
				}
				continue
			}
			stayed = append(stayed, r)
		}
		checkInSync(t, stayed, ticks)
		for _, r := range stayed {
			if removed := r.model.Removed(); len(removed) != 1 || removed[0].Player != slow {
				t.Errorf("player %d saw removals %+v", r.id, removed)
			}
		}
		if m := rn.srv.Stats().Models[0]; m.TooSlow != 1 {
			t.Errorf("%d seats dropped too slow", m.TooSlow)
		}
		if n := logs.Matching("too slow"); n != 1 {
			t.Errorf("%d log records about the slow seat, want 1", n)
		}
		if n := logs.Len(); n > 40 {
			t.Errorf("%d log records", n)
		}
	})
}
