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

// FuzzAssembler drives the fragment assembler with arbitrary fragments
// (seeded from a real fragmented message) and checks its memory bound and
// that it only completes messages of the declared size.
func FuzzAssembler(f *testing.F) {
	set, err := Config{}.resolve()
	if err != nil {
		f.Fatal(err)
	}
	m := &outMsg{}
	m.setPayload(bytes.Repeat([]byte{1, 2, 3}, 2000), false, set)
	var seed []byte
	for i := range m.count {
		fr := m.frame(ChannelAssets, i)
		seed = append(seed, byte(fr.seq), byte(fr.index), byte(fr.count), byte(fr.total>>8), byte(fr.total), byte(len(fr.payload)>>8))
	}
	f.Add(seed)
	f.Add([]byte{0, 0, 2, 0, 10, 0, 0, 1, 2, 0, 10, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		a := assembler{limit: 4000}
		now := simEpoch
		for len(b) >= 6 {
			count := uint16(b[2]%8) + 1
			fr := frame{channel: ChannelID(b[0] % 3), seq: uint16(b[0]), index: uint16(b[1]) % count, count: count,
				total: uint32(b[3])<<8 | uint32(b[4])}
			size := int(b[5]) + 1
			b = b[6:]
			if size > len(b)+1 {
				size = len(b) + 1
			}
			fr.payload = make([]byte, size)
			if fr.total == 0 {
				continue
			}
			msg, err := a.add(&fr, b[0:min(1, len(b))] == nil, now)
			if err == nil && msg != nil && uint32(len(msg)) != fr.total {
				t.Fatalf("completed %d bytes, declared %d", len(msg), fr.total)
			}
			if a.reserved > a.limit || a.reserved < 0 {
				t.Fatalf("reserved %d, limit %d", a.reserved, a.limit)
			}
			now = now.Add(time.Second)
			a.expire(now, 5*time.Second)
		}
	})
}
