package transport

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// allocated returns the bytes fn allocates on the heap.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// compressedDatagram returns a datagram of srv's connection carrying one
// frame with the compressed flag on channel ch.
func compressedDatagram(srv *Session, seq uint32, ch ChannelID, payload []byte) []byte {
	flags := uint8(frameCompressed | frameToEnd)
	cs := srv.set.channel(ch)
	if cs.Reliability.reliable() {
		flags |= frameReliable
	}
	if cs.Reliability.sequenced() {
		flags |= frameOrdered
	}
	d := appendHeader(nil, header{connID: srv.connID, seq: seq})
	return appendFrame(d, &frame{channel: ch, flags: flags, payload: payload})
}

// TestCompressedFlagOnChannelThatNeverCompresses: a compressed frame on
// the orders lane, which never compresses, is refused with its datagram.
func TestCompressedFlagOnChannelThatNeverCompresses(t *testing.T) {
	cfg := Config{Channels: testLanes()}
	n := newSimNet(t, 61, cfg, cfg, clean, clean)
	n.connect()
	srv := n.s[1]
	cdc, err := newCodec(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer cdc.close()
	malformed := srv.Stats().Malformed
	srv.HandleDatagram(compressedDatagram(srv, 9000, testLaneOrders, cdc.compress([]byte("move 12 units"))), n.now)
	if m, ok := srv.Receive(); ok {
		t.Fatalf("delivered %q on a channel that never compresses", m.Data)
	}
	if st := srv.Stats(); st.Malformed != malformed+1 || st.ProtocolErrors != 1 {
		t.Fatalf("malformed %d, want %d; protocol errors %d, want 1", st.Malformed, malformed+1, st.ProtocolErrors)
	}
}

// TestWholeFrameOverChannelSize: an unfragmented message longer than its
// channel's MaxMessageSize is refused with its datagram, like a fragment
// naming too large a total; one of exactly that size is delivered.
func TestWholeFrameOverChannelSize(t *testing.T) {
	const size = 64
	lanes := testLanes()
	lanes[0].MaxMessageSize = size
	cfg := Config{Channels: lanes}
	n := newSimNet(t, 62, cfg, cfg, clean, clean)
	n.connect()
	srv := n.s[1]
	whole := func(seq uint32, payload []byte) []byte {
		d := appendHeader(nil, header{connID: srv.connID, seq: seq})
		return appendFrame(d, &frame{channel: testLaneOrders, flags: frameReliable | frameOrdered | frameToEnd, payload: payload})
	}
	malformed := srv.Stats().Malformed
	srv.HandleDatagram(whole(9000, make([]byte, size+1)), n.now)
	if m, ok := srv.Receive(); ok {
		t.Fatalf("delivered a %d-byte message on a channel of %d", len(m.Data), size)
	}
	if st := srv.Stats(); st.Malformed != malformed+1 || st.ProtocolErrors != 1 {
		t.Fatalf("malformed %d, want %d; protocol errors %d, want 1", st.Malformed, malformed+1, st.ProtocolErrors)
	}
	srv.HandleDatagram(whole(9001, make([]byte, size)), n.now)
	if st := srv.Stats(); st.ProtocolErrors != 1 {
		t.Fatalf("a message of exactly %d bytes was refused (protocol errors %d)", size, st.ProtocolErrors)
	}
}

// TestHandshakeRejectsCompressionMismatch: whether a channel may compress
// is part of the configuration both sides must share, since a receiver
// refuses compressed frames on a channel that never compresses.
func TestHandshakeRejectsCompressionMismatch(t *testing.T) {
	lanes := testLanes()
	lanes[4].Compression = CompressNever
	n := newSimNet(t, 64, Config{Channels: lanes}, Config{Channels: testLanes()}, clean, clean)
	n.runUntil(func() bool { return n.s[0].State() == StateDisconnected }, 10*time.Second)
	if err := n.s[0].Err(); !errors.Is(err, ErrHandshake) || !strings.Contains(err.Error(), "mismatch") {
		t.Fatalf("client err = %v", err)
	}
	// A different threshold or level of compression is no mismatch.
	lanes[4].Compression, lanes[4].CompressionThreshold = CompressAlways, 0
	n = newSimNet(t, 64, Config{Channels: lanes}, Config{Channels: testLanes()}, clean, clean)
	n.connect()
}

// TestDecompressionBomb replays the bomb of the hardening issue: one
// datagram of 1.8 kB whose compressed payload declares, and holds, a
// 16 MiB message on the lanes' bulk channel. It is refused before any
// output is allocated.
func TestDecompressionBomb(t *testing.T) {
	cfg := Config{Channels: testLanes(), MTU: 1900}
	n := newSimNet(t, 62, cfg, cfg, clean, clean)
	n.connect()
	srv := n.s[1]
	cdc, err := newCodec(DefaultMaxMessageSize)
	if err != nil {
		t.Fatal(err)
	}
	defer cdc.close()
	bomb := cdc.enc.EncodeAll(make([]byte, DefaultMaxMessageSize), binary.AppendUvarint(nil, DefaultMaxMessageSize))
	d := compressedDatagram(srv, 9000, testLaneBulk, bomb)
	if len(d) > 1900 {
		t.Fatalf("bomb datagram of %d bytes", len(d))
	}
	srv.HandleDatagram(d, n.now) // the codec is created on first use
	d = compressedDatagram(srv, 9001, testLaneBulk, bomb)
	if a := allocated(func() { srv.HandleDatagram(d, n.now) }); a > 64<<10 {
		t.Fatalf("a %d-byte datagram made the session allocate %d bytes", len(d), a)
	}
	if m, ok := srv.Receive(); ok {
		t.Fatalf("delivered a %d-byte message from a %d-byte datagram", len(m.Data), len(d))
	}
	if st := srv.Stats(); st.ProtocolErrors != 2 || st.Channels[testLaneBulk-1].Errors != 2 {
		t.Fatalf("protocol errors %d, bulk lane errors %d; want 2 and 2", st.ProtocolErrors, st.Channels[testLaneBulk-1].Errors)
	}
}

// TestDecompressLimits checks the codec's bounds: a declared size over
// the channel's maximum or over maxExpansion times the compressed size is
// refused before anything is allocated for the output, and a lie about
// the size never yields more than declared.
func TestDecompressLimits(t *testing.T) {
	c, err := newCodec(DefaultMaxMessageSize)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	garbage := binary.AppendUvarint(nil, DefaultMaxMessageSize)
	garbage = append(garbage, bytes.Repeat([]byte{0x28, 0xb5, 0x2f, 0xfd}, 25)...)
	for range 4 { // warm every decoder of the pool up
		_, _ = c.decompress(garbage, DefaultMaxMessageSize)
	}
	if a := allocated(func() { _, _ = c.decompress(garbage, DefaultMaxMessageSize) }); a > 4<<10 {
		t.Fatalf("refusing a %d-byte payload allocated %d bytes", len(garbage), a)
	}
	big := c.compress(make([]byte, 100_000))
	if _, err := c.decompress(big, 99_999); !errors.Is(err, errDecompress) {
		t.Fatalf("over the channel's maximum: %v", err)
	}
	// A lie: declares 10 bytes but holds 100,000.
	lie := append(binary.AppendUvarint(nil, 10), big[len(binary.AppendUvarint(nil, 100_000)):]...)
	if _, err := c.decompress(lie, 1<<20); !errors.Is(err, errDecompress) {
		t.Fatalf("lie: %v", err)
	}
	if _, err := c.decompress([]byte{0x80}, 1<<20); !errors.Is(err, errDecompress) {
		t.Fatalf("truncated: %v", err)
	}
	// Past the expansion bound: 256 bytes may declare 64 KiB, not more.
	z := c.enc.EncodeAll(make([]byte, 64<<10+1), binary.AppendUvarint(nil, 64<<10+1))
	z = append(z, make([]byte, 256-len(z))...)
	if _, err := c.decompress(z, 1<<20); !errors.Is(err, errDecompress) || !strings.Contains(err.Error(), "expands") {
		t.Fatalf("past the bound: %v", err)
	}
	for _, size := range []int{1000, 100_000, 4 << 20} {
		msg := make([]byte, size)
		z := c.compress(msg)
		if len(z)*maxExpansion < size {
			t.Fatalf("%d zero bytes compress to %d, past the expansion bound", size, len(z))
		}
		out, err := c.decompress(z, size)
		if err != nil || !bytes.Equal(out, msg) {
			t.Fatalf("%d bytes: round trip failed: %v", size, err)
		}
		for range 4 { // warm every decoder of the pool up
			_, _ = c.decompress(z, size)
		}
		if a := allocated(func() { _, _ = c.decompress(z, size) }); a > uint64(len(z)*maxExpansion+64<<10) {
			t.Fatalf("decompressing %d bytes into %d allocated %d", len(z), size, a)
		}
	}
}

// TestCompressionOnTheWire sends compressible messages on the world
// channel: they arrive intact at a fraction of their size, and one that
// compresses past the expansion bound (4 MiB of zeros) is padded to the
// bound, costing its sender about size/maxExpansion bytes.
func TestCompressionOnTheWire(t *testing.T) {
	sentence := bytes.Repeat([]byte("chunk data compresses well; "), 4000) // 112 kB
	zeros := make([]byte, 4<<20)
	for _, c := range []struct {
		name   string
		msg    []byte
		lo, hi int // bytes the sender may put on the wire
	}{
		{"sentence", sentence, len(sentence) / maxExpansion, len(sentence) / 20},
		{"zeros-padded", zeros, len(zeros) / maxExpansion, len(zeros)/maxExpansion*11/10 + 2*DefaultMTU},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := newSimNet(t, 17, Config{}, Config{}, clean, clean)
			n.connect()
			var got []byte
			n.onMessage = func(side int, m Message) { got = m.Data }
			w := n.wire[0]
			if err := n.s[0].Send(ChannelWorld, c.msg, n.now); err != nil {
				t.Fatal(err)
			}
			n.runUntil(func() bool { return got != nil }, time.Minute)
			if !bytes.Equal(got, c.msg) {
				t.Fatal("message corrupted")
			}
			if sent := n.wire[0] - w; sent < c.lo || sent > c.hi {
				t.Fatalf("%d bytes on the wire for %d bytes, want %d to %d", sent, len(c.msg), c.lo, c.hi)
			}
		})
	}
}
