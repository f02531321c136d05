package relay

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// A fuzz program is a start byte and a sequence of operations on a
// 3-player core. With start&1 == 0 the core is fresh (calibrating); with
// start&1 == 1 it first replays a recorded calibration and seed exchange
// (the prelude, not part of the input) and is playing, so short inputs
// reach the tick loop. Then the operations:
//
//	op&3 == 0  message: u16 length, then that many bytes decoded with
//	           msg.Codec and stepped from player (op>>2)%4 (3 = a stranger)
//	op&3 == 1  time: u16, the clock advances by that many 100 µs, with a
//	           Tick at every deadline on the way; with op&4 the relay
//	           process stalls meanwhile (no Tick on the way)
//	op&3 == 2  raw submission (past the decoder, as from an in-process
//	           client): player byte, tick offset i8 from the next tick,
//	           stamp offset i16 ms from now, order count byte ×4, unit count
//	           byte, sub-tick byte ×1000 µs
//	op&3 == 3  control (op>>2)%4: Heard, Leave, BoostSync, Tick
//
// After each operation the Ready output is drained and checked.
var fuzzPlayers = [...]protocol.PlayerID{1, 2, 3, 99}

// One input's work is bounded: at most maxProgramLen bytes of operations
// and maxProgramTime of relay time after the prelude (about 900 ticks,
// past every timeout of the default configuration).
const (
	maxProgramLen  = 512
	maxProgramTime = 30 * time.Second
)

// fuzzConfig keeps the recorded matches short: four calibration pings.
func fuzzConfig() Config {
	return Config{Rand: newSeededReader(1), Calibration: CalibrationConfig{Pings: 4, MinPongs: 3}}
}

// FuzzCoreStep feeds arbitrary message sequences to a core: it must never
// panic, and what it holds must stay within fixed bounds. Inputs stay small
// (a few hundred bytes) so an execution takes microseconds and the fuzzer's
// minimisation, quadratic in the input's length, stays cheap.
func FuzzCoreStep(f *testing.F) {
	prelude, play := transcriptProgram(f, 1, 4)
	_, play2 := transcriptProgram(f, 2, 2)
	f.Add(append([]byte{1}, play...))
	f.Add(append([]byte{1}, play2...))
	f.Add(append([]byte{1}, rawProgram(8)...))
	f.Add(append(append([]byte{1}, rawProgram(4)...), 1|4, 0x20, 0x4e, 1, 0x4d, 0x01)) // a 2 s stall
	f.Add(append([]byte{0}, prelude[:min(len(prelude), 160)]...))
	f.Add([]byte{0, 1, 0xff, 0xff, 2, 0, 0, 0, 0, 0xff, 10, 5, 3, 4})
	f.Fuzz(func(t *testing.T, prog []byte) {
		runProgram(t, prelude, prog)
	})
}

// TestTranscriptProgram checks that the fuzz seeds reach play: a recorded
// match replays to the same tick with every player in it, and the seeds
// stay small.
func TestTranscriptProgram(t *testing.T) {
	prelude, play := transcriptProgram(t, 1, 4)
	c := runProgram(t, prelude, append([]byte{1}, play...))
	if c.Phase() != PhasePlaying || c.NextTick() < 4 {
		t.Fatalf("replay ends %v at tick %d", c.Phase(), c.NextTick())
	}
	for _, id := range fuzzPlayers[:3] {
		if st, _ := c.Player(id); st.Status != StatusActive || st.LateSubmissions > 0 {
			t.Errorf("player %d: %v, %d late", id, st.Status, st.LateSubmissions)
		}
	}
	if len(play) >= maxProgramLen {
		t.Errorf("play seed is %d bytes, more than a program runs", len(play))
	}
	c = runProgram(t, prelude, append([]byte{1}, rawProgram(8)...))
	if c.NextTick() < 4 {
		t.Errorf("raw program ends at tick %d", c.NextTick())
	}
}

// runProgram runs a fuzz program, checking the core after each operation.
func runProgram(t *testing.T, prelude, prog []byte) *Core {
	c, err := New(fuzzConfig(), fuzzPlayers[:3], 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(prog) == 0 {
		return c
	}
	r := fuzzRun{t: t, c: c, limit: maxProgramTime}
	if prog[0]&1 == 1 {
		r.run(prelude)
		r.limit = r.now + maxProgramTime
	}
	r.run(prog[1:min(len(prog), 1+maxProgramLen)])
	return c
}

// fuzzRun interprets fuzz programs on one core.
type fuzzRun struct {
	t     *testing.T
	c     *Core
	codec msg.Codec
	now   time.Duration
	limit time.Duration // the clock never passes it
}

func (r *fuzzRun) run(prog []byte) {
	t, c := r.t, r.c
	for len(prog) > 0 {
		op := prog[0]
		prog = prog[1:]
		from := fuzzPlayers[int(op>>2)%len(fuzzPlayers)]
		switch op & 3 {
		case 0:
			var b []byte
			b, prog = take(prog[min(2, len(prog)):], int(u16(prog)))
			if m, err := r.codec.Decode(b); err == nil {
				_ = c.Step(r.now, from, m)
			}
		case 1:
			// An embedder's timer fires at each deadline on the way.
			now := r.now + time.Duration(u16(prog))*100*time.Microsecond
			_, prog = take(prog, 2)
			if now > r.limit {
				return // bound one input's work
			}
			for at, ok := c.NextDeadline(); ok && at < now && op&4 == 0; {
				c.Tick(at)
				checkCore(t, c, at)
				next, more := c.NextDeadline()
				if more && next <= at {
					t.Fatalf("Tick(%v) leaves the next deadline at %v: a timer loop would spin", at, next)
				}
				at, ok = next, more
			}
			r.now = now
			c.Tick(now)
		case 2:
			var b []byte
			b, prog = take(prog, 7)
			_ = c.Step(r.now, fuzzPlayers[int(b[0])%len(fuzzPlayers)], rawSubmit(c, r.now, b))
		case 3:
			switch (op >> 2) % 4 {
			case 0:
				c.Heard(r.now, from)
			case 1:
				c.Leave(r.now, from)
			case 2:
				c.BoostSync(r.now)
			case 3:
				c.Tick(r.now)
			}
		}
		checkCore(t, c, r.now)
	}
}

// rawProgram is a compact play program: the start delay, then ticks
// windows, each with a raw submission from every player and a tick
// interval of time.
func rawProgram(ticks int) []byte {
	prog := binary.LittleEndian.AppendUint16([]byte{1}, uint16(DefaultStartDelay/(100*time.Microsecond)))
	for k := range ticks {
		for p := range 3 {
			prog = append(prog, 2, byte(p), 0, 0, 0, byte(k%2), 1, byte(p*10))
		}
		prog = binary.LittleEndian.AppendUint16(append(prog, 1), 333)
	}
	return prog
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
	// One op moves the clock by at most 6.5 s, and after stalls of its
	// own the relay runs behind its schedule by at most a heartbeat
	// timeout (5 s), caught up at two frames per interval: at most about
	// 700 frames.
	if len(c.frames.items) > 1024 || len(c.feedbacks.items) > 1024*len(c.players) {
		t.Fatalf("message pools grew to %d frames, %d feedbacks", len(c.frames.items), len(c.feedbacks.items))
	}
}

// transcriptProgram records a simulated match of 3 players as fuzz
// programs: the prelude (calibration and the seed exchange, until play
// begins) and play (ticks ticks with orders and sync hashes).
func transcriptProgram(tb testing.TB, seed uint64, ticks int) (prelude, play []byte) {
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
	prelude, prog = prog, nil
	for k := range ticks {
		at := n.core.timeline.windowStart(int64(k+1)) + time.Millisecond
		n.issue(n.clients[k%3], at, protocol.Move{Units: []protocol.EntityID{protocol.EntityID(k)}})
	}
	n.runUntil(time.Hour, func() bool { return n.core.NextTick() > uint64(ticks) })
	return prelude, prog
}
