package transport

import (
	"bytes"
	"testing"
	"time"
)

// capture returns datagrams of a short session exercising every frame
// kind: control, fragments, compression, unreliable and reliable channels.
func capture(t testing.TB) [][]byte {
	n := newSimNet(t, 21, Config{}, Config{}, harsh, harsh)
	var out [][]byte
	n.tap = func(from int, b []byte) {
		if len(out) < 200 {
			out = append(out, bytes.Clone(b))
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
		f.Add(d)
	}
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

// FuzzSessionHandleDatagram feeds arbitrary datagrams to connected
// sessions: they must neither panic nor break their bounds.
func FuzzSessionHandleDatagram(f *testing.F) {
	for _, d := range capture(f) {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n := newSimNet(t, 22, Config{}, Config{}, clean, clean)
		n.connect()
		for i, s := range n.s {
			s.HandleDatagram(b, n.now)
			// Splice the fuzz input after a valid header of this connection.
			h := appendHeader(nil, header{connID: s.connID, seq: uint32(7000 + i)})
			s.HandleDatagram(append(h, b...), n.now)
		}
		n.runFor(time.Second)
		for _, s := range n.s {
			if s.asm.reserved > s.asm.limit || s.inboxBytes < 0 {
				t.Fatalf("bounds broken: reserved %d of %d", s.asm.reserved, s.asm.limit)
			}
		}
	})
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
