package transport

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
	"time"
)

func TestHeaderRoundTrip(t *testing.T) {
	for _, c := range []struct {
		h    header
		want string // the layout drawn in doc.go, byte for byte
	}{
		{header{flags: flagPing | flagAck, delay: 1234, connID: 0xDEADBEEF, seq: 0xFFFFFFFF, ackLatest: 7, ackMask: 0x8000000000000001},
			"02" + "03" + "deadbeef" + "ffffffff" + "04d2" + "00000007" + "8000000000000001"},
		{header{connID: 0xDEADBEEF, seq: 5}, "02" + "00" + "deadbeef" + "00000005"},
	} {
		b := appendHeader(nil, c.h)
		if len(b) != c.h.size() {
			t.Fatalf("header is %d bytes, size() says %d", len(b), c.h.size())
		}
		got, rest, err := parseHeader(append(b, 9))
		if err != nil || got != c.h || !bytes.Equal(rest, []byte{9}) {
			t.Fatalf("parseHeader = %+v, %v, %v; want %+v", got, rest, err, c.h)
		}
		if hex.EncodeToString(b) != c.want {
			t.Fatalf("wire form %x, want %s", b, c.want)
		}
		id, ok := peekConnID(b)
		if !ok || id != c.h.connID {
			t.Fatalf("peekConnID = %x, %v", id, ok)
		}
	}
}

func TestHeaderRejects(t *testing.T) {
	good := appendHeader(nil, header{connID: 1})
	acked := appendHeader(nil, header{flags: flagAck, connID: 1, ackMask: 1})
	for name, b := range map[string][]byte{
		"short":     good[:headerMinLen-1],
		"short ack": acked[:headerLen-1],
		"version":   append([]byte{1}, good[1:]...),
		"flags":     append([]byte{protocolVersion, 0x80}, good[2:]...),
	} {
		if _, _, err := parseHeader(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
}

func TestFrameRoundTrip(t *testing.T) {
	frames := []frame{
		{channel: 3, flags: frameReliable | frameOrdered, seq: 65535, payload: []byte("hello")},
		{channel: 7, flags: frameReliable | frameFragment | frameCompressed, seq: 9, index: 0, count: 3, total: 2000, payload: bytes.Repeat([]byte{1}, 900)},
		{channel: 7, flags: frameReliable | frameFragment | frameLastFragment, seq: 9, index: 2, count: 3, total: 2000, payload: []byte{2}},
		{channel: 1, payload: []byte{}},
		{channel: 2, payload: []byte("no sequence")},
		{channel: 4, flags: frameReliable | frameToEnd, seq: 3, payload: []byte("to the end")},
	}
	var b []byte
	for i := range frames {
		b = appendFrame(b, &frames[i])
	}
	for i, want := range frames {
		got, rest, err := parseFrame(b)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if got.size() != want.size() || got.channel != want.channel || got.flags != want.flags || got.seq != want.seq ||
			got.index != want.index || got.count != want.count || got.total != want.total || !bytes.Equal(got.payload, want.payload) {
			t.Fatalf("frame %d = %+v, want %+v", i, got, want)
		}
		b = rest
	}
	if len(b) != 0 {
		t.Fatalf("%d bytes left", len(b))
	}
}

func TestFrameRejects(t *testing.T) {
	mk := func(f frame) []byte { return appendFrame(nil, &f) }
	for name, b := range map[string][]byte{
		"truncated header":   {1, 0, 0},
		"length beyond":      mk(frame{channel: 1, flags: frameReliable, payload: []byte("abc")})[:8],
		"truncated seq":      {1, frameReliable, 0},
		"truncated length":   {1, 0, 0},
		"unknown flag":       mk(frame{channel: 1, flags: 0x80}),
		"index beyond count": mk(frame{channel: 1, flags: frameFragment, index: 3, count: 3, total: 10, payload: []byte{1}}),
		"zero count":         mk(frame{channel: 1, flags: frameFragment, total: 10, payload: []byte{1}}),
		"payload over total": mk(frame{channel: 1, flags: frameFragment, count: 2, total: 1, payload: []byte{1, 2}}),
		"last flag wrong":    mk(frame{channel: 1, flags: frameFragment | frameLastFragment, count: 2, total: 9, payload: []byte{1}}),
		"last without frag":  mk(frame{channel: 1, flags: frameLastFragment}),
		"empty fragment":     mk(frame{channel: 1, flags: frameFragment, count: 2, total: 9}),
	} {
		if _, _, err := parseFrame(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
}

func TestEncodeDelay(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want uint16
	}{{-1, 0}, {0, 0}, {7 * time.Microsecond, 0}, {8 * time.Microsecond, 1}, {time.Millisecond, 125}, {time.Second, delayUnknown}} {
		if got := encodeDelay(c.d); got != c.want {
			t.Errorf("encodeDelay(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}

func TestElideLength(t *testing.T) {
	for _, f := range []frame{
		{channel: 2, flags: frameReliable | frameOrdered, seq: 9, payload: []byte("reliable")},
		{channel: 3, payload: []byte("unreliable")},
		{channel: 4, flags: frameReliable | frameFragment, seq: 1, count: 2, total: 20, payload: []byte("fragment")},
	} {
		first := frame{channel: 1, flags: frameReliable, seq: 7, payload: []byte("first")}
		b := appendFrame(nil, &first)
		at := len(b)
		b = elideLength(appendFrame(b, &f), at)
		if len(b) != first.size()+f.size()-2 {
			t.Fatalf("%d bytes, want %d", len(b), first.size()+f.size()-2)
		}
		got1, rest, err := parseFrame(b)
		if err != nil || got1.seq != 7 || !bytes.Equal(got1.payload, first.payload) {
			t.Fatalf("first frame %+v, %v", got1, err)
		}
		got, rest, err := parseFrame(rest)
		if err != nil || len(rest) != 0 || got.flags != f.flags|frameToEnd || got.seq != f.seq || !bytes.Equal(got.payload, f.payload) {
			t.Fatalf("last frame %+v, %v, %d left; want %+v", got, err, len(rest), f)
		}
	}
}
