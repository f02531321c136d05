package relay

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/relay/msg"
)

// A fuzz program is a sequence of operations on a 3-player core:
//
//	op&3 == 0  message: u16 length, then that many bytes decoded with
//	           msg.Codec and stepped from player (op>>2)%4 (3 = a stranger)
//	op&3 == 1  time: u16, the clock advances by that many 100 µs, with a
//	           Tick at every deadline on the way
//	op&3 == 2  raw submission (past the decoder, as from an in-process
//	           client): player byte, tick offset i8 from the next tick,
//	           stamp offset i16 ms from now, order count byte ×4, unit count
//	           byte, sub-tick byte ×1000 µs
//	op&3 == 3  control (op>>2)%4: Heard, Leave, BoostSync, Tick
//
// After each operation the Ready output is drained and checked.
var fuzzPlayers = [...]protocol.PlayerID{1, 2, 3, 99}

// maxProgramTime ends a fuzz program: at most 18,000 ticks.
const maxProgramTime = 10 * time.Minute

// fuzzConfig keeps the recorded matches short: four calibration pings.
func fuzzConfig() Config {
	return Config{Rand: newSeededReader(1), Calibration: CalibrationConfig{Pings: 4, MinPongs: 3}}
}

// FuzzCoreStep feeds arbitrary message sequences to a core: it must never
// panic, and what it holds must stay within fixed bounds.
func FuzzCoreStep(f *testing.F) {
	for _, seed := range []uint64{1, 2} {
		f.Add(transcriptProgram(f, seed))
	}
	f.Add([]byte{1, 0xff, 0xff, 2, 0, 0, 0, 0, 0xff, 10, 5, 3, 4})
	f.Fuzz(func(t *testing.T, prog []byte) {
		runProgram(t, prog)
	})
}

// TestTranscriptProgram checks that the fuzz seeds reach play: a recorded
// match replays to the same tick with every player in it.
func TestTranscriptProgram(t *testing.T) {
	prog := transcriptProgram(t, 1)
	c := runProgram(t, prog)
	if c.Phase() != PhasePlaying || c.NextTick() < 38 {
		t.Fatalf("replay ends %v at tick %d", c.Phase(), c.NextTick())
	}
	for _, id := range fuzzPlayers[:3] {
		if st, _ := c.Player(id); st.Status != StatusActive || st.LateSubmissions > 0 {
			t.Errorf("player %d: %v, %d late", id, st.Status, st.LateSubmissions)
		}
	}
}

// runProgram runs a fuzz program, checking the core after each operation.
func runProgram(t *testing.T, prog []byte) *Core {
	ids := fuzzPlayers[:3]
	c, err := New(fuzzConfig(), ids, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codec msg.Codec
	now := time.Duration(0)
	for len(prog) > 0 {
		op := prog[0]
		prog = prog[1:]
		from := fuzzPlayers[int(op>>2)%len(fuzzPlayers)]
		switch op & 3 {
		case 0:
			var b []byte
			b, prog = take(prog[min(2, len(prog)):], int(u16(prog)))
			if m, err := codec.Decode(b); err == nil {
				_ = c.Step(now, from, m)
			}
		case 1:
			// An embedder's timer fires at each deadline on the way.
			now += time.Duration(u16(prog)) * 100 * time.Microsecond
			_, prog = take(prog, 2)
			if now > maxProgramTime {
				return c // bound one input's work
			}
			for at, ok := c.NextDeadline(); ok && at < now; {
				c.Tick(at)
				checkCore(t, c, at)
				next, more := c.NextDeadline()
				if more && next <= at {
					t.Fatalf("Tick(%v) leaves the next deadline at %v: a timer loop would spin", at, next)
				}
				at, ok = next, more
			}
			c.Tick(now)
		case 2:
			var b []byte
			b, prog = take(prog, 7)
			_ = c.Step(now, fuzzPlayers[int(b[0])%len(fuzzPlayers)], rawSubmit(c, now, b))
		case 3:
			switch (op >> 2) % 4 {
			case 0:
				c.Heard(now, from)
			case 1:
				c.Leave(now, from)
			case 2:
				c.BoostSync(now)
			case 3:
				c.Tick(now)
			}
		}
		checkCore(t, c, now)
	}
	return c
}

// u16 reads a little-endian u16, zero-padded.
func u16(b []byte) uint16 {
	var x [2]byte
	copy(x[:], b)
	return binary.LittleEndian.Uint16(x[:])
}

// take splits n bytes off b, zero-padded when b is short.
func take(b []byte, n int) (head, rest []byte) {
	head = make([]byte, n)
	copy(head, b)
	return head, b[min(n, len(b)):]
}

func rawSubmit(c *Core, now time.Duration, b []byte) *msg.OrderSubmit {
	s := &msg.OrderSubmit{
		Tick:   uint64(max(int64(c.NextTick())+int64(int8(b[1])), 0)),
		SentUs: durUs(now + time.Duration(int16(u16(b[2:])))*time.Millisecond),
		Size:   int(b[5]) * 8,
	}
	units := make([]protocol.EntityID, int(b[5]))
	for i := range int(b[4]) * 4 {
		s.Orders = append(s.Orders, protocol.TimestampedOrder{
			Player: protocol.PlayerID(1 + i%3), Order: protocol.Move{Units: units},
			SubTickTime: uint32(b[6]) * 1000 * uint32(i%3),
		})
	}
	return s
}

// checkCore drains the core and checks its invariants and bounds.
func checkCore(t *testing.T, c *Core, now time.Duration) {
	t.Helper()
	rd := c.Ready()
	for _, e := range rd.Messages {
		if e.Msg == nil {
			t.Fatal("nil message in Ready")
		}
		if f, ok := e.Msg.(*msg.TickFrame); ok && len(f.Orders) > len(c.players)*c.cfg.Limits.MaxOrdersPerPlayerPerTick+len(c.players) {
			t.Fatalf("frame %d holds %d orders", f.Tick, len(f.Orders))
		}
	}
	c.Advance()
	if c.HasReady() {
		t.Fatal("HasReady after Advance")
	}
	if at, ok := c.NextDeadline(); ok && at < c.now {
		t.Fatalf("next deadline %v before now %v", at, c.now)
	}
	held := 0
	for _, w := range c.timeline.slots {
		held += len(w.orders)
	}
	if limit := len(c.timeline.slots) * len(c.players) * (c.cfg.Limits.MaxOrdersPerPlayerPerTick + 1); held > limit {
		t.Fatalf("%d orders held in windows, bound %d", held, limit)
	}
	if len(c.removals) > len(c.players) {
		t.Fatalf("%d removals scheduled for %d players", len(c.removals), len(c.players))
	}
	// One op moves the clock by at most 6.5 s: about 200 frames.
	if len(c.frames.items) > 256 || len(c.feedbacks.items) > 256*len(c.players) {
		t.Fatalf("message pools grew to %d frames, %d feedbacks", len(c.frames.items), len(c.feedbacks.items))
	}
}

// transcriptProgram records a simulated match (3 players through
// calibration, the seed exchange and 40 ticks with orders and sync hashes)
// as a fuzz program.
func transcriptProgram(tb testing.TB, seed uint64) []byte {
	n, err := newSimNet(fuzzConfig(), fuzzPlayers[:3], seed)
	if err != nil {
		tb.Fatal(err)
	}
	n.clients[1].jitter = 5 * time.Millisecond
	var prog []byte
	var last time.Duration
	var codec msg.Codec
	n.onStep = func(id protocol.PlayerID, m msg.Message) {
		for d := (n.now - last) / (100 * time.Microsecond); d > 0; {
			step := min(d, 0xffff)
			prog = binary.LittleEndian.AppendUint16(append(prog, 1), uint16(step))
			d -= step
		}
		last = n.now
		b, err := codec.Append(nil, m)
		if err != nil {
			tb.Fatal(err)
		}
		op := byte(id-1) << 2
		prog = append(binary.LittleEndian.AppendUint16(append(prog, op), uint16(len(b))), b...)
	}
	n.runUntil(time.Minute, func() bool { return n.core.Phase() >= PhasePlaying })
	for k := range 40 {
		at := n.core.timeline.windowStart(int64(k+3)) + time.Millisecond
		n.issue(n.clients[k%3], at, protocol.Move{Units: []protocol.EntityID{protocol.EntityID(k)}})
	}
	n.runUntil(time.Hour, func() bool { return n.core.NextTick() > 40 })
	return prog
}
