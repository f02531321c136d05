package transport

import (
	"bytes"
	"testing"
	"time"
)

// tapped is a datagram seen on a simulated network.
type tapped struct {
	from int
	at   time.Time
	b    []byte
}

// capture returns datagrams of a short session exercising every frame
// kind: control, fragments, compression, unreliable and reliable channels.
func capture(t testing.TB) []tapped {
	n := newSimNet(t, 21, Config{}, Config{}, harsh, harsh)
	var out []tapped
	n.tap = func(from int, b []byte) {
		if len(out) < 200 {
			out = append(out, tapped{from, n.now, bytes.Clone(b)})
		}
	}
	n.connect()
	s := n.s[0]
	_ = s.Send(ChannelWorld, bytes.Repeat([]byte("abc"), 3000), n.now)
	_ = s.Send(ChannelAssets, make([]byte, 5000), n.now)
	noise := make([]byte, 5000)
	for i := range noise {
		noise[i] = byte(i * i >> 3)
	}
	_ = s.Send(ChannelAssets, noise, n.now)
	_ = s.Send(ChannelEffects, []byte("boom"), n.now)
	_ = s.Send(ChannelEntities, bytes.Repeat([]byte{7}, 300), n.now)
	_ = s.Send(ChannelInput, []byte{1, 2, 3}, n.now)
	n.runFor(2 * time.Second)
	return out
}

// FuzzParseDatagram checks that the header and frame decoders never panic
// and that whatever they accept re-encodes to the same bytes.
func FuzzParseDatagram(f *testing.F) {
	for _, d := range capture(f) {
		f.Add(d.b)
	}
	dg := appendHeader(nil, header{connID: 1, seq: 2})
	for _, r := range repairFrames([][]byte{[]byte("input"), []byte("order")}, 9, 2) {
		dg = appendFrame(dg, &r)
	}
	f.Add(dg)
	f.Fuzz(func(t *testing.T, b []byte) {
		h, rest, err := parseHeader(b)
		if err != nil {
			return
		}
		out := appendHeader(nil, h)
		for len(rest) > 0 {
			var fr frame
			fr, rest, err = parseFrame(rest)
			if err != nil {
				return
			}
			out = appendFrame(out, &fr)
		}
		if !bytes.Equal(out, b) {
			t.Fatalf("re-encoding differs:\n got %x\nwant %x", out, b)
		}
	})
}

// FuzzSessionHandleDatagram runs a connected pair of sessions through a
// short program of the fuzzer's (see fuzzPair.run): messages the real
// sender encodes, fragments and compresses, datagrams corrupted, lost,
// duplicated or reordered on the way, arbitrary datagrams, time, closes.
// The sessions must neither panic nor break their bounds. A program is a
// few bytes, so that an execution costs tens of microseconds and the
// fuzzer's minimization of what it finds stays quick.
func FuzzSessionHandleDatagram(f *testing.F) {
	fuzzSessions(f, false)
}

// fuzzSessions is the body of the session fuzz targets, with or without
// reliable-link mode.
func fuzzSessions(f *testing.F, reliableLink bool) {
	for _, seed := range sessionSeeds(capture(f)) {
		f.Add(seed)
	}
	set, err := Config{}.resolve()
	if err != nil {
		f.Fatal(err)
	}
	cdc, err := newCodec(set.maxMessage)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(cdc.close)
	f.Fuzz(func(t *testing.T, b []byte) {
		newFuzzPair(t, set, cdc, reliableLink).run(b)
	})
}

// Operations of a fuzz program: each is three bytes, op, x and y.
const (
	fuzzSend    = iota // side x&1 sends a message of (x>>1)² bytes on channel y%10, compressible if y&0x80
	fuzzDeliver        // deliver up to y%16+1 datagrams in flight to side x&1
	fuzzCorrupt        // xor byte y of the next datagram to side x&1 with x|1
	fuzzShuffle        // the next datagram to side x&1: y%3 = 0 lost, 1 duplicated, 2 sent to the back
	fuzzWait           // advance x·2^(y%16) µs (up to 8 s) and run due timers
	fuzzRaw            // the next y bytes of the program are a datagram to side x&1, after a valid header if x&2
	fuzzClose          // side x&1 closes gracefully
	fuzzAbort          // side x&1 aborts
	fuzzOps
)

// sessionSeeds returns fuzz programs: every operation on a real exchange,
// and captured datagrams (those that fit a raw operation) raw and spliced.
func sessionSeeds(dgs []tapped) [][]byte {
	seeds := [][]byte{
		{fuzzSend, 190, 0x85, fuzzDeliver, 1, 15, fuzzDeliver, 0, 15, fuzzWait, 200, 7}, // compressed, fragmented world chunk
		{fuzzSend, 140, 7, fuzzCorrupt, 1, 40, fuzzShuffle, 1, 1, fuzzShuffle, 1, 2, fuzzDeliver, 1, 15, fuzzWait, 100, 10},
		{fuzzSend, 8, 1, fuzzSend, 9, 2, fuzzSend, 40, 0x83, fuzzSend, 6, 4, fuzzSend, 30, 0x86, fuzzSend, 3, 8,
			fuzzShuffle, 1, 0, fuzzDeliver, 1, 15, fuzzWait, 50, 12, fuzzDeliver, 0, 15},
		{fuzzSend, 121, 3, fuzzShuffle, 0, 2, fuzzClose, 0, 0, fuzzDeliver, 1, 15, fuzzWait, 255, 15, fuzzAbort, 1, 0},
		{fuzzRaw, 3, 4, 5, 0, 0, 0, fuzzWait, 255, 20},
	}
	for _, d := range dgs {
		if len(d.b) <= maxProgram-3 && len(seeds) < 40 {
			for _, splice := range []byte{0, 2} {
				to := byte(1 - d.from)
				seeds = append(seeds, append([]byte{fuzzRaw, to | splice, byte(len(d.b))}, d.b...))
			}
		}
	}
	return seeds
}

// fuzzPair is a connected client (0) and server (1) for the fuzz targets,
// with the datagrams in flight to each. It is built without a simulated
// network, from a configuration resolved once and a codec shared by every
// execution (as a driver's connections share theirs); the session
// parameters are capture's, so that captured datagrams fit the connection.
type fuzzPair struct {
	t    *testing.T
	s    [2]*Session
	now  time.Time
	wire [2][][]byte // datagrams in flight to side i
	buf  []byte
	seq  uint32 // of the next spliced datagram
}

func newFuzzPair(t *testing.T, set *settings, cdc *codec, reliableLink bool) *fuzzPair {
	p := &fuzzPair{t: t, now: simEpoch, seq: 7000}
	p.s[0] = newSession(set, SessionParams{Client: true, ConnID: 0xC0FFEE, InitialSeq: 1000, ReliableLink: reliableLink}, p.now)
	p.s[1] = newSession(set, SessionParams{ConnID: 0xC0FFEE, InitialSeq: 5000, Token: 42, ReliableLink: reliableLink}, p.now)
	for _, s := range p.s {
		s.cdc = cdc
	}
	p.flush()
	if p.s[0].State() != StateConnected || p.s[1].State() != StateConnected {
		t.Fatalf("handshake: client %v, server %v", p.s[0].State(), p.s[1].State())
	}
	return p
}

// maxProgram is the length of the longest fuzz program; bytes past it are
// ignored, so the minimizer, whose pass over an input is quadratic in its
// length, cuts them first and stays quick.
const maxProgram = 192

// run executes the program b, then delivers what is in flight and lets
// the timers run a few rounds.
func (p *fuzzPair) run(b []byte) {
	b = b[:min(len(b), maxProgram)]
	for len(b) >= 3 {
		op, x, y := b[0]%fuzzOps, b[1], b[2]
		b = b[3:]
		side := int(x & 1)
		s := p.s[side]
		switch op {
		case fuzzSend:
			msg := make([]byte, int(x>>1)*int(x>>1))
			for i := range msg {
				if y&0x80 != 0 {
					msg[i] = byte(i % 7)
				} else {
					msg[i] = byte(uint32(i) * 2654435761 >> 24)
				}
			}
			_ = s.Send(ChannelID(y&0x7F%10), msg, p.now)
			p.collect(side)
		case fuzzDeliver:
			for range int(y%16) + 1 {
				p.deliverOne(side)
			}
		case fuzzCorrupt:
			if q := p.wire[side]; len(q) > 0 && len(q[0]) > 0 {
				q[0][int(y)%len(q[0])] ^= x | 1
			}
		case fuzzShuffle:
			if q := p.wire[side]; len(q) > 0 {
				switch y % 3 {
				case 0:
					p.wire[side] = q[1:]
				case 1:
					p.wire[side] = append(q, bytes.Clone(q[0]))
				case 2:
					p.wire[side] = append(q[1:], q[0])
				}
			}
		case fuzzWait:
			p.now = p.now.Add(time.Duration(x) << (y % 16) * time.Microsecond)
			p.timers()
		case fuzzRaw:
			n := min(int(y), len(b))
			d := bytes.Clone(b[:n])
			b = b[n:]
			if x&2 != 0 {
				d = append(appendHeader(nil, header{connID: s.connID, seq: p.seq}), d...)
				p.seq++
			}
			p.wire[side] = append([][]byte{d}, p.wire[side]...)
			p.deliverOne(side)
		case fuzzClose:
			s.Close("fuzz", p.now)
			p.collect(side)
		case fuzzAbort:
			s.Abort("fuzz", nil)
			p.collect(side)
		}
	}
	for range 4 {
		p.flush()
		next := earliest(p.s[0].Deadline(p.now), p.s[1].Deadline(p.now))
		if next.IsZero() {
			return
		}
		p.now = later(p.now, next)
		p.timers()
	}
}

// maxInFlight bounds the datagrams in flight to one side; a hostile
// datagram may keep the sessions talking.
const maxInFlight = 256

// collect queues what side i has to send.
func (p *fuzzPair) collect(i int) {
	s := p.s[i]
	for len(p.wire[1-i]) < maxInFlight {
		var ok bool
		p.buf, ok = s.AppendDatagram(p.buf[:0], p.now)
		if !ok {
			return
		}
		if s.reliableLink && p.buf[1]&flagAck != 0 {
			p.t.Fatalf("side %d sent an acknowledgement section over a reliable link", i)
		}
		p.wire[1-i] = append(p.wire[1-i], bytes.Clone(p.buf))
	}
}

// deliverOne hands side i the next datagram in flight to it; side i reads
// what it received and queues its answer.
func (p *fuzzPair) deliverOne(i int) {
	if len(p.wire[i]) == 0 {
		return
	}
	d := p.wire[i][0]
	p.wire[i] = p.wire[i][1:]
	s := p.s[i]
	s.HandleDatagram(d, p.now)
	for {
		m, ok := s.Receive()
		if !ok {
			break
		}
		if cs := s.set.channel(m.Channel); len(m.Data) > cs.maxSize {
			p.t.Fatalf("side %d received %d bytes on channel %d, which allows %d", i, len(m.Data), m.Channel, cs.maxSize)
		}
	}
	p.check(i)
	p.collect(i)
}

// timers runs the sides' due timers and queues what they send.
func (p *fuzzPair) timers() {
	for i, s := range p.s {
		if d := s.Deadline(p.now); !d.IsZero() && !d.After(p.now) {
			s.HandleTimeout(p.now)
			p.check(i)
		}
		p.collect(i)
	}
}

// flush delivers everything in flight, both ways, until the sides are
// quiet or a bound is reached.
func (p *fuzzPair) flush() {
	for range 8 * maxInFlight {
		i := 1
		if len(p.wire[1]) == 0 {
			i = 0
			if len(p.wire[0]) == 0 {
				p.collect(0)
				p.collect(1)
				if len(p.wire[0])+len(p.wire[1]) == 0 {
					return
				}
				continue
			}
		}
		p.deliverOne(i)
	}
}

// check verifies side i's bounds: the assembler accounts for the bytes
// its buffers retain, within its limit, the session stays within the
// connection's memory budget, and over a reliable link it keeps no sent
// datagrams.
func (p *fuzzPair) check(i int) {
	s := p.s[i]
	if got, want := s.asm.memory(), retained(&s.asm); got != want {
		p.t.Fatalf("side %d: assembler accounts for %d bytes, retains %d", i, got, want)
	}
	if s.reliableLink && s.sent.q.len() != 0 {
		p.t.Fatalf("side %d holds %d sent datagrams over a reliable link", i, s.sent.q.len())
	}
	if s.asm.reserved > s.asm.limit || s.inboxBytes < 0 || s.MemoryInUse() > s.set.memoryBudget {
		p.t.Fatalf("side %d: reserved %d of %d, inbox %d bytes, %d bytes in use, budget %d",
			i, s.asm.reserved, s.asm.limit, s.inboxBytes, s.MemoryInUse(), s.set.memoryBudget)
	}
}

// FuzzAssembler drives the fragment assembler with arbitrary fragments,
// most of them cut like a sender would (so that groups complete), some
// not, and checks after each one that it accounts for exactly the bytes
// its buffers retain (walked, not read from its counters), that those stay
// within its limit and the connection's memory budget, and that it
// completes only messages of the declared size and content. Each fragment
// is 6 bytes of input: key, index, count (high bit: use as is), total
// (2 bytes), fragment size (low bit: payload one byte short).
func FuzzAssembler(f *testing.F) {
	set, err := Config{MaxMessageSize: 64 << 10, MemoryBudget: 512 << 10, MaxReassemblyBytes: 256 << 10}.resolve()
	if err != nil {
		f.Fatal(err)
	}
	var seed []byte
	for i := range 10 {
		seed = append(seed, 1, byte(i), 0, 0x09, 0x10, 0x80)
	}
	f.Add(seed)
	f.Add([]byte{0, 1, 0, 0, 200, 0, 0, 0, 0, 0, 200, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		a := assembler{limit: set.maxReassembly}
		now := simEpoch
		for ; len(b) >= 6; b = b[6:] {
			l := minFragPayload + int(b[5])
			fr := frame{channel: ChannelID(b[0] % 3), seq: uint16(b[0] >> 2), total: uint32(b[3])<<8 | uint32(b[4])}
			count := (int(fr.total) + l - 1) / l
			if b[2]&0x80 != 0 {
				count = int(b[2]&0x7F) + 1
			}
			if count == 0 || fr.total == 0 {
				continue
			}
			fr.count = uint16(count)
			fr.index = uint16(int(b[1]) % count)
			size := l
			if int(fr.index) == count-1 {
				size = int(fr.total) - (count-1)*l
			}
			size -= int(b[5] & 1)
			if size <= 0 || size > 2*l {
				size = 1
			}
			fr.payload = make([]byte, size)
			for i := range fr.payload {
				fr.payload[i] = byte(fr.index)
			}
			msg, err := a.add(&fr, b[0]&0x40 != 0, now)
			if err == nil && msg != nil {
				if uint32(len(msg)) != fr.total {
					t.Fatalf("completed %d bytes, declared %d", len(msg), fr.total)
				}
				for i, c := range msg {
					if c != byte(i/l) {
						t.Fatalf("byte %d of a completed message is %d, want %d", i, c, byte(i/l))
					}
				}
			}
			if got, want := a.memory(), retained(&a); got != want {
				t.Fatalf("accounts for %d bytes, retains %d", got, want)
			}
			if a.reserved > a.limit || a.memory() > a.reserved || retained(&a) > set.memoryBudget {
				t.Fatalf("retains %d, reserved %d, limit %d, budget %d", retained(&a), a.reserved, a.limit, set.memoryBudget)
			}
			now = now.Add(time.Second)
			a.expire(now, 5*time.Second)
		}
	})
}
