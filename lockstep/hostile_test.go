package lockstep_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// hostileMessage returns a random client → relay message with random,
// often absurd, field values.
func hostileMessage(rng *rand.Rand) msg.Message {
	tick := rng.Uint64N(1 << uint(rng.IntN(64)))
	switch rng.IntN(7) {
	case 0:
		var orders []protocol.TimestampedOrder
		for range rng.IntN(4) {
			orders = append(orders, protocol.TimestampedOrder{Player: protocol.PlayerID(rng.IntN(5)), SubTickTime: rng.Uint32(),
				Order: protocol.Move{Units: []protocol.EntityID{protocol.EntityID(rng.Uint32())}, Target: protocol.WorldPos{X: protocol.SimCoord(rng.Int32()), Y: protocol.SimCoord(rng.Int32())}}})
		}
		return &msg.OrderSubmit{Tick: tick, SentUs: rng.Uint64(), AckTick: rng.Uint64N(1000), Token: rng.Uint32(), AckDelayUs: rng.Uint32(), Orders: orders}
	case 1:
		return &msg.SyncHash{Tick: tick, Hash: rng.Uint64()}
	case 2:
		return &msg.ClientMetrics{AvgLatencyUs: rng.Uint32(), AvgFPS: uint16(rng.Uint32()), ArrivalCushion: int16(rng.Uint32()), TickProcessingUs: rng.Uint32()}
	case 3:
		return &msg.CalibrationPong{Seq: uint16(rng.Uint32()), RelaySendUs: rng.Uint64(), ClientRecvUs: rng.Uint64(), ClientSendUs: rng.Uint64()}
	case 4:
		return &msg.SeedCommit{}
	case 5:
		return &msg.SeedReveal{Nonce: [16]byte{byte(rng.Uint32())}}
	}
	return &msg.TickFrame{Tick: tick} // not a client message at all
}

// TestRelaySurvivesHostileClient: a player whose connection also carries
// a stream of random messages cannot crash the relay or disturb the
// others' game.
func TestRelaySurvivesHostileClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rn := startRelay(t, server.Config{})
		defer rn.close()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		const n, ticks, hostile = 3, 300, 3
		out := make(chan result, n)
		for i := range n {
			go func() {
				conn, err := rn.dial(ctx, netsim.Link{Latency: 10 * time.Millisecond}, uint64(i+1))
				if err != nil {
					out <- result{err: err}
					return
				}
				rc, err := lockstep.JoinRelay(ctx, conn, "hostile", n, lockstep.RelayClientConfig{Rand: fixedRand(i)})
				if err != nil {
					out <- result{err: err}
					return
				}
				defer rc.Close()
				if rc.PlayerID() == hostile {
					go inject(ctx, conn, rand.New(rand.NewPCG(7, 11)))
				}
				out <- playGame(ctx, rc, ticks)
			}()
		}
		var honest []result
		for range n {
			if r := <-out; r.id != hostile {
				honest = append(honest, r)
			}
		}
		cancel()
		checkInSync(t, honest, ticks)
		st := rn.stats()
		if st.Rejected == 0 {
			t.Errorf("the relay refused none of the hostile messages: %+v", st)
		}
		t.Logf("relay refused %d messages, removed %d players", st.Rejected, st.Removals)
	})
}

// inject sends random messages on conn every 10 to 20 milliseconds until
// ctx ends: with the client's own traffic, within the relay's inbound
// rate limit (4 × 30 messages a second), so that what is tested is the
// messages' content. Beyond the limit the relay drops the player's
// messages, its own sync reports among them (TestFloodDoesNotDelayOthers
// floods).
func inject(ctx context.Context, conn *transport.Conn, rng *rand.Rand) {
	var c msg.Codec
	for ctx.Err() == nil {
		m := hostileMessage(rng)
		if b, err := c.Append(nil, m); err == nil {
			conn.Send(lanes.Of(msg.IsSample(m)), b)
		}
		time.Sleep(time.Duration(10+rng.IntN(11)) * time.Millisecond)
	}
}
