package lanes_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// A tick program is a player count byte (1 + b%64), eight bytes of seed,
// then runs of five bytes: player (b % players), count (b + 1 orders, so
// up to 256), kind (b % 7), unit count (b % 65) and a value byte (bit 0:
// extreme values, the widest varints; bit 1: cell-aligned positions).
// Each run submits count orders of one shape, with values drawn from the
// seed, for the player's tick 0.
const runLen = 5

// worstProgram is the worst case: every player at the per-player ceiling
// of the widest Move.
func worstProgram() []byte {
	p := []byte{relay.MaxPlayers - 1, 1, 2, 3, 4, 5, 6, 7, 8}
	for i := range relay.MaxPlayers {
		p = append(p, byte(i), 255, 1, 64, 1)
	}
	return p
}

// FuzzTickFrameFitsLane: any tick frame the relay core produces from
// legal submissions (its order budget and bandwidth throttle out of the
// way, so only the protocol limits bind) encodes within
// msg.Codec.MaxTickFrameSize, travels on a lane that takes it whole, and
// decodes on the client to the same orders.
func FuzzTickFrameFitsLane(f *testing.F) {
	f.Add([]byte{2, 9, 9, 9, 9, 9, 9, 9, 9, 0, 39, 1, 12, 0, 1, 39, 1, 12, 0})
	f.Add([]byte{0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 255, 6, 0, 1})
	f.Add([]byte{7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 3, 2, 64, 3, 5, 200, 4, 0, 1, 3, 255, 3, 64, 1})
	f.Add(worstProgram())
	f.Fuzz(func(t *testing.T, prog []byte) { checkTick(t, prog) })
}

// TestWorstTickFitsLane: the worst-case program gives the largest tick
// the limits allow, and it fits the orders lane.
func TestWorstTickFitsLane(t *testing.T) {
	frame, size := checkTick(t, worstProgram())
	if want := relay.MaxPlayers * protocol.DefaultMaxOrdersPerPlayerPerTick; len(frame.Orders) != want {
		t.Fatalf("worst tick holds %d orders, want %d", len(frame.Orders), want)
	}
	// An unfragmented message has 1,170 bytes of a 1,200-byte datagram;
	// a fragment carries 1,162 (1,145 encrypted).
	t.Logf("worst-case frame: %d orders, %d bytes (bound %d), %d datagrams (%d encrypted)",
		len(frame.Orders), size, lanes.MaxMessageSize(), (size+1161)/1162, (size+1144)/1145)
}

// checkTick runs a tick program and checks its frame; it returns the
// frame and its encoded size.
func checkTick(t *testing.T, prog []byte) (*msg.TickFrame, int) {
	if len(prog) < 9 {
		return &msg.TickFrame{}, 0
	}
	n := 1 + int(prog[0])%relay.MaxPlayers
	rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(prog[1:9]), 7))
	submissions := make([][]protocol.TimestampedOrder, n)
	for run := prog[9:]; len(run) >= runLen; run = run[runLen:] {
		p := int(run[0]) % n
		for range int(run[1]) + 1 {
			o := order(rng, run[2]%7, int(run[3])%65, run[4])
			submissions[p] = append(submissions[p], protocol.TimestampedOrder{Player: protocol.PlayerID(p + 1), Order: o,
				SubTickTime: uint32(rng.IntN(33_333))})
		}
	}
	frame := playTick(t, submissions)
	b, err := msg.Codec{}.Append(nil, frame)
	if err != nil {
		t.Fatalf("the core's frame does not encode: %v", err)
	}
	if bound := (msg.Codec{}).MaxTickFrameSize(n); len(b) > bound {
		t.Fatalf("frame of %d players, %d orders: %d bytes > bound %d", n, len(frame.Orders), len(b), bound)
	}
	if !fits(lanes.Of(msg.IsSample(frame)), len(b)) {
		t.Fatalf("frame of %d bytes does not fit lane %d", len(b), lanes.Of(msg.IsSample(frame)))
	}
	m, err := msg.Codec{}.Decode(b)
	if err != nil || len(m.(*msg.TickFrame).Orders) != len(frame.Orders) {
		t.Fatalf("the client cannot decode the frame: %v", err)
	}
	return frame, len(b)
}

// fits reports whether a message of size bytes can be sent on lane.
func fits(lane transport.ChannelID, size int) bool {
	for _, c := range lanes.Channels() {
		if c.ID == lane {
			return c.AllowFragmentation && size <= c.MaxMessageSize
		}
	}
	return false
}

// order draws a legal order of the given shape.
func order(rng *rand.Rand, kind byte, units int, v byte) protocol.PlayerOrder {
	extreme := v&1 != 0
	id := func() protocol.EntityID {
		if extreme && rng.IntN(2) == 0 {
			return math.MaxUint32
		}
		return protocol.EntityID(rng.Uint32N(1 << (2 + rng.IntN(30))))
	}
	pos := func() protocol.WorldPos {
		c := func() protocol.SimCoord {
			if extreme {
				return protocol.SimCoord(rng.Int32()) | math.MinInt32 | 1
			}
			return protocol.SimCoord(rng.Int32N(1 << 20))
		}
		p := protocol.WorldPos{X: c(), Y: c(), Z: c()}
		if v&2 != 0 {
			p.X, p.Y, p.Z = p.X&^1023, p.Y&^1023, 0
		}
		return p
	}
	list := func() []protocol.EntityID {
		u := make([]protocol.EntityID, units)
		for i := range u {
			switch {
			case !extreme:
				u[i] = id()
			case i%2 == 1: // every id and delta takes five bytes
				u[i] = math.MaxUint32
			default:
				u[i] = 1<<28 + protocol.EntityID(rng.Uint32N(16))
			}
		}
		return u
	}
	switch kind {
	case 0:
		return protocol.Idle{}
	case 1:
		return protocol.Move{Units: list(), Target: pos()}
	case 2:
		t := protocol.Target{Kind: protocol.TargetGround, Pos: pos()}
		if v&4 != 0 {
			t = protocol.Target{Kind: protocol.TargetEntity, Entity: id()}
		}
		return protocol.Attack{Units: list(), Target: t}
	case 3:
		return protocol.Build{Structure: protocol.StructureType(rng.Uint32N(1 << 16)), Pos: pos()}
	case 4:
		return protocol.SetRallyPoint{Building: id(), Pos: pos()}
	case 5:
		return protocol.Sell{Building: id()}
	}
	payload := make([]byte, units*4%(protocol.DefaultMaxCustomPayload+1))
	for i := range payload {
		payload[i] = byte(rng.Uint32())
	}
	return protocol.Custom{Kind: uint16(rng.Uint32()), Payload: payload}
}

// playTick starts a match of len(submissions) players, submits each
// player's orders for tick 0 honestly, and returns tick 0's frame.
func playTick(t *testing.T, submissions [][]protocol.TimestampedOrder) *msg.TickFrame {
	ids := make([]protocol.PlayerID, len(submissions))
	var per []relay.PlayerCalibration
	for i := range ids {
		ids[i] = protocol.PlayerID(i + 1)
		per = append(per, relay.PlayerCalibration{Player: ids[i], Samples: 20, MedianRTT: 40 * time.Millisecond,
			Jitter: 2 * time.Millisecond, EstimatedOneWay: 20 * time.Millisecond, OneWayP95: 21 * time.Millisecond})
	}
	cfg := relay.Config{Rand: zeros{}, Rate: relay.RateConfig{RefillPerTick: 1 << 20, BurstCap: 1 << 20, BytesPerTick: 1 << 30, BytesBurst: 1 << 30}}
	c, err := relay.New(cfg, ids, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ApplyCalibration(0, relay.MatchCalibration{PerPlayer: per, SharedInitialRunAhead: 2, InitialTickDeadline: 60 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if err := c.Step(0, id, &msg.SeedCommit{Commitment: relay.Commitment([32]byte{byte(id)}, [16]byte{})}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		if err := c.Step(0, id, &msg.SeedReveal{Contribution: [32]byte{byte(id)}}); err != nil {
			t.Fatal(err)
		}
	}
	end := c.Start() + c.TickInterval()
	for i, orders := range submissions {
		s := &msg.OrderSubmit{Tick: 0, SentUs: uint64(end / time.Microsecond), Orders: orders}
		if err := c.Step(end+20*time.Millisecond, ids[i], s); err != nil {
			t.Fatal(err)
		}
	}
	c.Tick(end + c.Deadline())
	for _, e := range c.Ready().Messages {
		if f, ok := e.Msg.(*msg.TickFrame); ok && f.Tick == 0 {
			return f
		}
	}
	t.Fatal("no frame for tick 0")
	return nil
}

// zeros is a random source of zeros: the liveness tokens do not matter.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
