package lockstep_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// orderSim is a Simulation whose state is every order it applied: equal
// hashes mean equal ticks, order for order.
type orderSim struct {
	hash    uint64
	largest protocol.TickOrders // the tick with the most orders
}

func (s *orderSim) ApplyTick(t protocol.TickOrders) error {
	b := binary.LittleEndian.AppendUint64(nil, s.hash)
	b = binary.LittleEndian.AppendUint64(b, t.Tick)
	for _, o := range t.Orders {
		b = binary.LittleEndian.AppendUint32(b, uint32(o.Player)<<8|uint32(o.Order.OrderKind()))
		b = binary.LittleEndian.AppendUint32(b, o.SubTickTime)
		switch v := o.Order.(type) {
		case protocol.Move:
			for _, u := range v.Units {
				b = binary.LittleEndian.AppendUint32(b, uint32(u))
			}
			b = fmt.Appendf(b, "%v", v.Target)
		case protocol.Idle:
		default:
			b = fmt.Appendf(b, "%#v", v)
		}
	}
	h := fnv.New64a()
	h.Write(b)
	s.hash = h.Sum64()
	if len(t.Orders) > len(s.largest.Orders) {
		s.largest = t
	}
	return nil
}

func (s *orderSim) StateHash() uint64 { return s.hash }

// burst is an OrderSource issuing orders once, when the game loop asks
// for tick at.
type burst struct {
	at     uint64
	orders []protocol.TimestampedOrder
}

func (b burst) Orders(tick uint64) []protocol.TimestampedOrder {
	if tick == b.at {
		return b.orders
	}
	return nil
}

// noOrders is an OrderSource that never issues an order.
type noOrders struct{}

func (noOrders) Orders(uint64) []protocol.TimestampedOrder { return nil }

// busyResult is one client's game.
type busyResult struct {
	id      protocol.PlayerID
	hash    uint64
	ticks   uint64
	largest protocol.TickOrders
	err     error
}

// playBusy joins room on conn and applies ticks ticks with an orderSim;
// input (may be nil) issues orders, seated (may be nil) is called with
// the connection once the client is seated.
func playBusy(ctx context.Context, rn *relayNet, link netsim.Link, seed uint64, room string, size int, ticks uint64,
	input func(protocol.PlayerID) lockstep.OrderSource, seated func(protocol.PlayerID, *transport.Conn)) busyResult {
	conn, err := rn.dial(ctx, link, seed)
	if err != nil {
		return busyResult{err: err}
	}
	rc, err := lockstep.JoinRelay(ctx, conn, room, size, lockstep.RelayClientConfig{Rand: fixedRand(seed)})
	if err != nil {
		return busyResult{err: err}
	}
	defer rc.Close()
	if seated != nil {
		seated(rc.PlayerID(), conn)
	}
	s := &orderSim{}
	// A loop with an OrderSource applies one tick per Step (without one,
	// a Step applies every tick that has arrived, and how many have
	// depends on how the goroutines were scheduled): the loop stops at
	// exactly ticks however busy the machine is.
	loop := lockstep.GameLoop{Sim: s, Net: rc, Input: noOrders{}}
	if input != nil {
		if src := input(rc.PlayerID()); src != nil {
			loop.Input = src
		}
	}
	r := busyResult{id: rc.PlayerID()}
	for loop.Applied() < ticks && r.err == nil {
		n, err := loop.Step()
		switch {
		case err != nil:
			r.err = err
		case n > 0:
		case rc.Status() >= lockstep.StatusEnded:
			r.err = fmt.Errorf("model %v after %d ticks: %v", rc.Status(), loop.Applied(), rc.Err())
		default:
			r.err = rc.Wait(ctx)
		}
	}
	r.hash, r.ticks, r.largest = s.hash, loop.Applied(), s.largest
	return r
}

// checkBusy fails unless every client applied ticks ticks in the same
// state and saw a tick of want orders.
func checkBusy(t *testing.T, res []busyResult, ticks uint64, want int) {
	t.Helper()
	for _, r := range res {
		if r.err != nil {
			t.Fatalf("player %d: %v", r.id, r.err)
		}
		if r.ticks != ticks || r.hash != res[0].hash {
			t.Errorf("player %d applied %d ticks, hash %016x; player %d: %d, %016x", r.id, r.ticks, r.hash, res[0].id, res[0].ticks, res[0].hash)
		}
		if len(r.largest.Orders) != want {
			t.Errorf("player %d: largest tick %d holds %d orders, want %d", r.id, r.largest.Tick, len(r.largest.Orders), want)
		}
	}
}

// TestRelayBusyTickDelivered is the reproduction: three players,
// two of them issuing 40 Move orders of 12 units each for one tick. The
// tick's frame (about 8 kB) does not fit one datagram; it must reach
// every client, and the match go on.
func TestRelayBusyTickDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rn := startRelay(t, server.Config{})
		defer rn.close()
		const n, ticks, busyAt = 3, 90, 45
		input := func(id protocol.PlayerID) lockstep.OrderSource {
			if id == 3 {
				return nil
			}
			b := burst{at: busyAt}
			for i := range 40 {
				units := make([]protocol.EntityID, 12)
				for j := range units {
					units[j] = protocol.EntityID(1000*int(id) + 37*i + 101*j)
				}
				b.orders = append(b.orders, protocol.TimestampedOrder{Player: id, Order: protocol.Move{Units: units,
					Target: protocol.WorldPos{X: protocol.SimCoord(12345 * i), Y: protocol.SimCoord(-777 * i)}}})
			}
			return b
		}
		out := make(chan busyResult, n)
		for i := range n {
			go func() {
				out <- playBusy(t.Context(), rn, netsim.Link{Latency: 20 * time.Millisecond, Loss: 0.02}, uint64(i+1), "busy", n, ticks, input, nil)
			}()
		}
		res := make([]busyResult, n)
		for i := range res {
			res[i] = <-out
		}
		checkBusy(t, res, ticks, 81) // and an Idle for player 3
		b, err := msg.Codec{}.Append(nil, &msg.TickFrame{Tick: res[0].largest.Tick, Orders: res[0].largest.Orders})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("busiest frame: tick %d, %d orders, %d bytes", res[0].largest.Tick, len(res[0].largest.Orders), len(b))
		if st := rn.stats(); st.SendErrors != [server.NumSendCauses]uint64{} || st.Removals != 0 {
			t.Errorf("relay: send errors %v, %d removals", st.SendErrors, st.Removals)
		}
	})
}

// largestOrder is the longest legal order on the wire under the default
// limits: a Move of 64 units whose ids and deltas take five bytes each,
// to a position that is no cell and far from the origin. No two fit in
// one order packet, so a tick of them is one packet per order.
func largestOrder(player protocol.PlayerID, i int) protocol.TimestampedOrder {
	units := make([]protocol.EntityID, protocol.DefaultMaxUnitsPerOrder)
	for j := range units {
		units[j] = protocol.EntityID(uint32(i)) // alternately i and 2³²−1: every delta takes 5 bytes
		if j%2 == 1 {
			units[j] = math.MaxUint32
		}
	}
	return protocol.TimestampedOrder{Player: player, SubTickTime: uint32(20000 + i),
		Order: protocol.Move{Units: units, Target: protocol.WorldPos{X: math.MinInt32 + protocol.SimCoord(i), Y: math.MaxInt32 - 1, Z: math.MinInt32 + 3}}}
}

// TestRelayWorstCaseTick: the largest tick the relay's limits allow, end
// to end. Every one of relay.MaxPlayers players gets the per-player
// ceiling of the largest order into one tick (the order budget and the
// bandwidth throttle are raised out of the way, so the protocol limits
// bind: 16,384 orders), each as one submission of its own beside the
// client's. Every client must receive that tick (5.7 MB, about 4,900
// datagrams to each of 64 clients, through the relay's own transport
// configuration: unpaced, so most of the burst overflows the clients'
// receive queues and comes by retransmission), identical, and play on.
// Under the race detector, which slows this about twentyfold, and with
// -short, the room has 8 players.
func TestRelayWorstCaseTick(t *testing.T) {
	players := relay.MaxPlayers
	if raceEnabled || testing.Short() {
		players = 8
	}
	synctest.Test(t, func(t *testing.T) {
		epoch := time.Now()
		clock := func() time.Duration { return time.Since(epoch) }
		var start atomic.Int64
		agreed := make(chan struct{})
		var once sync.Once
		cfg := server.Config{Clock: clock}
		lc := lockstepserver.Config{OnEvent: func(_ string, ev relay.Event) {
			if e, ok := ev.(relay.SeedAgreed); ok {
				start.Store(int64(e.Start))
				once.Do(func() { close(agreed) })
			}
		}}
		lc.Relay.Rate = relay.RateConfig{RefillPerTick: 256, BurstCap: 256, BytesPerTick: 1 << 20, BytesBurst: 1 << 20}
		rn := startRelay(t, cfg, lc)
		defer rn.close()
		const ticks, busyTick = 30, 10
		interval := time.Second / relay.DefaultTickRate
		per := protocol.DefaultMaxOrdersPerPlayerPerTick
		// Early in window busyTick each player submits its ceiling for
		// it (90 kB), stamped honestly with the relay clock and flushed at
		// once; one player every 100 µs, so the relay's one socket queue
		// (netsim.MemQueue datagrams) is not asked to hold every player's
		// submission at the same instant, which would make submissions
		// late by a retransmission.
		inject := func(id protocol.PlayerID, conn *transport.Conn) {
			go func() {
				<-agreed
				at := time.Duration(start.Load()) + busyTick*interval + time.Duration(id)*100*time.Microsecond
				time.Sleep(at - clock())
				s := &msg.OrderSubmit{Tick: busyTick, SentUs: uint64(clock() / time.Microsecond)}
				for i := range per {
					s.Orders = append(s.Orders, largestOrder(id, i))
				}
				b, err := msg.Codec{}.Append(nil, s)
				if err == nil {
					err = conn.Send(lanes.Of(msg.IsSample(s)), b)
					conn.Flush()
				}
				if err != nil {
					t.Errorf("player %d: submitting the ceiling: %v", id, err)
				}
			}()
		}
		out := make(chan busyResult, players)
		for i := range players {
			go func() {
				out <- playBusy(t.Context(), rn, netsim.Link{Latency: 20 * time.Millisecond}, uint64(i+1), "worst", players, ticks, nil, inject)
			}()
		}
		res := make([]busyResult, players)
		for i := range res {
			res[i] = <-out
		}
		checkBusy(t, res, ticks, players*per)
		frame := &msg.TickFrame{Tick: busyTick, Orders: res[0].largest.Orders}
		b, err := msg.Codec{}.Append(nil, frame)
		if err != nil {
			t.Fatal(err)
		}
		bound := msg.Codec{}.MaxTickFrameSize(players)
		t.Logf("worst-case frame at %d players: %d orders, %d bytes (bound %d, lane limit %d)", players, len(frame.Orders), len(b), bound, lanes.MaxMessageSize())
		if len(b) > bound || bound > lanes.MaxMessageSize() {
			t.Errorf("frame %d bytes, bound %d, lane limit %d", len(b), bound, lanes.MaxMessageSize())
		}
		if st := rn.stats(); st.SendErrors != [server.NumSendCauses]uint64{} || st.Removals != 0 {
			t.Errorf("relay: send errors %v, %d removals", st.SendErrors, st.Removals)
		}
	})
}
