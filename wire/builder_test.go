package wire

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRoundTripEachKind writes one field of every kind, with edge values,
// and reads it back.
func TestRoundTripEachKind(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for k := range numKinds {
		for i := range 200 {
			want := randomField(rng, k)
			b := NewBuilder(nil, EntityPosition)
			writeField(b, want)
			msg, err := b.Build()
			if err != nil {
				t.Fatalf("kind %d #%d: Build: %v", k, i, err)
			}
			r := NewReader(msg)
			got := readField(r, k)
			if err := r.Finish(); err != nil {
				t.Fatalf("kind %d #%d: read % x: %v", k, i, msg, err)
			}
			if !sameField(got, want) {
				t.Fatalf("kind %d #%d: read %+v, wrote %+v", k, i, got, want)
			}
		}
	}
}

// TestGolden pins the byte layout of every field encoding.
func TestGolden(t *testing.T) {
	b := NewBuilder(nil, ChunkData)
	b.U8(0xab).U16(0x0102).U32(0x03040506).U64(0x0708090a0b0c0d0e).
		I8(-2).I16(-2).I32(-2).I64(-2).
		F32(1).F64(-2).Bool(true).Bool(false).
		Uvarint(300).Varint(-3).Varint(3).
		String("hi").Bytes([]byte{0xca, 0xfe}).Bytes(nil).CBOR([]byte{0xa0}).
		Vec3(1, 0, -1).BlockPos(1, -1, 256).
		QuantizedPos(1.5, -1, 0.5/4096).
		QuantizedAngle(math.Pi / 2).QuantizedAngle(-math.Pi / 2).
		ArrayHeader(2).Elem().U8(1).Elem().U8(2).
		MapHeader(1).Elem().String("k").Varint(1)
	msg, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"8001",                                       // ChunkData
		"ab",                                         // U8
		"0201",                                       // U16
		"06050403",                                   // U32
		"0e0d0c0b0a090807",                           // U64
		"fe", "feff", "feffffff", "feffffffffffffff", // I8..I64 -2
		"0000803f",         // F32 1
		"00000000000000c0", // F64 -2
		"01", "00",         // Bool
		"ac02", "05", "06", // Uvarint 300, Varint -3, 3
		"026869", "02cafe", "00", "01a0", // String, Bytes, empty Bytes, CBOR
		"0000803f" + "00000000" + "000080bf", // Vec3
		"01000000" + "ffffffff" + "00010000", // BlockPos
		"00180000" + "00f0ffff" + "01000000", // QuantizedPos 1.5*4096, -4096, 1
		"0040", "00c0",                       // quarter turn, minus a quarter turn
		"02", "01", "02", // array of two
		"01", "016b", "02", // map of one
	}, "")
	if got := hex.EncodeToString(msg); got != want {
		t.Errorf("message\n got %s\nwant %s", got, want)
	}
}

func TestQuantizedPos(t *testing.T) {
	tests := []struct {
		v    float64
		q    int32
		fail bool
	}{
		{0, 0, false},
		{1, 4096, false},
		{-1, -4096, false},
		{0.5 / 4096, 1, false},   // half a step rounds away from zero
		{-0.5 / 4096, -1, false}, // likewise below zero
		{0.49 / 4096, 0, false},
		{MaxQuantizedPos, math.MaxInt32, false},
		{MinQuantizedPos, math.MinInt32, false},
		{MinQuantizedPos - 0.4/4096, math.MinInt32, false},
		{MaxQuantizedPos + 1.0/4096, 0, true},
		{MinQuantizedPos - 1.0/4096, 0, true},
		{1e300, 0, true},
		{math.Inf(1), 0, true},
		{math.Inf(-1), 0, true},
		{math.NaN(), 0, true},
	}
	for _, tt := range tests {
		b := NewBuilder(nil, EntityPosition).QuantizedPos(0, tt.v, 0)
		msg, err := b.Build()
		if tt.fail {
			if !errors.Is(err, ErrOutOfRange) {
				t.Errorf("QuantizedPos(%v): err %v, want ErrOutOfRange", tt.v, err)
			}
			continue
		}
		r := NewReader(msg)
		r.I32()
		if q := r.I32(); q != tt.q || err != nil {
			t.Errorf("QuantizedPos(%v) = %d, %v; want %d", tt.v, q, err, tt.q)
		}
		r = NewReader(msg)
		if _, y, _ := r.QuantizedPos(); y != float64(tt.q)/4096 {
			t.Errorf("read back %v, want %v", y, float64(tt.q)/4096)
		}
	}
}

func TestQuantizedAngle(t *testing.T) {
	tests := []struct {
		rad  float32
		q    uint16
		back float32
	}{
		{0, 0, 0},
		{math.Pi / 2, 0x4000, math.Pi / 2},
		{-math.Pi / 2, 0xc000, -math.Pi / 2},
		{math.Pi, 0x8000, -math.Pi}, // a half turn reads back as -π
		{-math.Pi, 0x8000, -math.Pi},
		{2 * math.Pi, 0, 0},
		{3 * math.Pi, 0x8000, -math.Pi},
		{-1e-9, 0, 0},
		{1e30, uint16(int64(math.Mod(math.Round(float64(float32(1e30))/(2*math.Pi)*65536), 65536))), 0},
	}
	for _, tt := range tests {
		msg, err := NewBuilder(nil, EntityPosition).QuantizedAngle(tt.rad).Build()
		if err != nil {
			t.Fatalf("QuantizedAngle(%v): %v", tt.rad, err)
		}
		r := NewReader(msg)
		if q := r.U16(); q != tt.q {
			t.Errorf("QuantizedAngle(%v) wrote %#x, want %#x", tt.rad, q, tt.q)
		}
		if back := NewReader(msg).QuantizedAngle(); tt.back != 0 && back != tt.back {
			t.Errorf("QuantizedAngle(%v) read back %v, want %v", tt.rad, back, tt.back)
		}
	}
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		if _, err := NewBuilder(nil, EntityPosition).QuantizedAngle(bad).Build(); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("QuantizedAngle(%v): err %v, want ErrOutOfRange", bad, err)
		}
	}
}

// TestQuantizedAngleError checks random angles come back within half a step
// of the original, modulo a full turn.
func TestQuantizedAngleError(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const halfStep = math.Pi / AngleSteps
	for range 100000 {
		a := float32((rng.Float64()*2 - 1) * 20)
		msg, _ := NewBuilder(nil, EntityPosition).QuantizedAngle(a).Build()
		back := NewReader(msg).QuantizedAngle()
		if back < -math.Pi || back >= math.Pi {
			t.Fatalf("angle %v read back as %v, outside [-π, π)", a, back)
		}
		diff := math.Remainder(float64(a)-float64(back), 2*math.Pi)
		if math.Abs(diff) > halfStep+1e-6 { // 1e-6: float32 rounding of the result
			t.Fatalf("angle %v read back as %v: error %v > half step %v", a, back, diff, halfStep)
		}
	}
}

// TestQuantizedAngleStable checks every step survives decode and re-encode.
func TestQuantizedAngleStable(t *testing.T) {
	for q := range AngleSteps {
		if got, ok := quantizeAngle(dequantizeAngle(uint16(q))); !ok || got != uint16(q) {
			t.Fatalf("step %#x re-encodes as %#x", q, got)
		}
	}
}

func TestHeaders(t *testing.T) {
	// [[1, 2], [], [3]] followed by a trailing field.
	b := NewBuilder(nil, EntityBatch)
	b.ArrayHeader(3).
		Elem().ArrayHeader(2).Elem().U8(1).Elem().U8(2).
		Elem().ArrayHeader(0).
		Elem().ArrayHeader(1).Elem().U8(3)
	b.U8(0xee)
	msg, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if want := "04" + "03" + "020102" + "00" + "0103" + "ee"; hex.EncodeToString(msg) != want {
		t.Errorf("got %x, want %s", msg, want)
	}
	r := NewReader(msg)
	var got [][]uint8
	for range r.ArrayHeader() {
		var inner []uint8
		for range r.ArrayHeader() {
			inner = append(inner, r.U8())
		}
		got = append(got, inner)
	}
	if r.U8() != 0xee || r.Finish() != nil || len(got) != 3 || len(got[0]) != 2 || len(got[1]) != 0 || got[2][0] != 3 {
		t.Errorf("read %v, err %v", got, r.Err())
	}
}

func TestHeaderErrors(t *testing.T) {
	tests := []struct {
		name  string
		write func(b *Builder)
		want  error
	}{
		{"no elements marked", func(b *Builder) { b.ArrayHeader(2).U8(1).U8(2) }, ErrUnclosedHeader},
		{"too few elements", func(b *Builder) { b.MapHeader(2).Elem().U8(1).U8(2) }, ErrUnclosedHeader},
		{"inner unclosed", func(b *Builder) { b.ArrayHeader(1).Elem().ArrayHeader(1) }, ErrUnclosedHeader},
		{"elem without header", func(b *Builder) { b.U8(1).Elem() }, ErrHeaderMisuse},
		{"one elem too many", func(b *Builder) { b.ArrayHeader(1).Elem().U8(1).Elem() }, ErrHeaderMisuse},
		{"too deep", func(b *Builder) {
			for range MaxHeaderDepth + 1 {
				b.ArrayHeader(1).Elem()
			}
		}, nil},
		{"too deep while open", func(b *Builder) {
			for range MaxHeaderDepth + 1 {
				b.ArrayHeader(2).Elem()
			}
		}, ErrHeaderMisuse},
	}
	for _, tt := range tests {
		b := NewBuilder([]byte("prefix"), EntityBatch)
		tt.write(b)
		out, err := b.Build()
		if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
			t.Errorf("%s: Build error %v, want %v", tt.name, err, tt.want)
		}
		if err != nil && string(out) != "prefix" {
			t.Errorf("%s: failed Build returned %q, want the caller's prefix", tt.name, out)
		}
	}
}

func TestSizeLimit(t *testing.T) {
	b := NewBuilder(nil, ChunkData).SetMaxSize(10)
	b.U64(1) // 2 + 8 = 10 bytes: exactly at the limit
	if msg, err := b.Build(); err != nil || len(msg) != 10 {
		t.Fatalf("at the limit: %d bytes, %v", len(msg), err)
	}
	b.Reset(nil, ChunkData) // the limit survives Reset
	b.U32(1).U32(2).U8(3)
	var werr *Error
	if _, err := b.Build(); !errors.Is(err, ErrTooLarge) || !errors.As(err, &werr) || werr.Op != "U8" || werr.Offset != 10 {
		t.Fatalf("over the limit: %v", err)
	}
	b.SetMaxSize(0) // back to the default
	b.Reset(nil, ChunkData)
	if _, err := b.Bytes(make([]byte, DefaultMaxSize)).Build(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a payload over DefaultMaxSize: %v", err)
	}
	b.Reset(nil, ChunkData)
	if msg, err := b.Bytes(make([]byte, DefaultMaxSize-2-3)).Build(); err != nil || len(msg) != DefaultMaxSize {
		t.Errorf("a message of exactly DefaultMaxSize: %d bytes, %v", len(msg), err)
	}
}

func TestBuilderStickyError(t *testing.T) {
	b := NewBuilder(nil, PlayerInput).U8(1).QuantizedPos(math.NaN(), 0, 0)
	first := b.Err()
	n := b.Len()
	b.U32(5).String("x").Elem().ArrayHeader(3).QuantizedAngle(float32(math.NaN())).SetMaxSize(1).U8(1)
	if b.Err() != first || b.Len() != n || !errors.Is(first, ErrOutOfRange) {
		t.Errorf("after the first error: err %v (first %v), len %d (was %d)", b.Err(), first, b.Len(), n)
	}
	var werr *Error
	if !errors.As(first, &werr) || werr.Op != "QuantizedPos" || werr.Offset != 2 {
		t.Errorf("error %#v, want QuantizedPos at offset 2", first)
	}
	if _, err := b.Build(); err != first {
		t.Errorf("Build returned %v, want the first error", err)
	}
}

func TestBuilderInvalidType(t *testing.T) {
	var b Builder
	b.Reset(nil, 0xe00001)
	if _, err := b.U8(1).Build(); !errors.Is(err, ErrInvalidType) {
		t.Errorf("Build of an invalid type: %v", err)
	}
}

func TestBuilderAppendsToBuffer(t *testing.T) {
	buf := append(make([]byte, 0, 64), "frame:"...)
	b := NewBuilder(buf, ClientHello).String("hello")
	if b.Len() != 3+6 {
		t.Errorf("Len = %d, want 9", b.Len())
	}
	out, err := b.Build()
	if err != nil || !bytes.HasPrefix(out, []byte("frame:")) || &out[0] != &buf[:1][0] {
		t.Fatalf("Build = %q, %v; want it appended in place", out, err)
	}
	r := NewReader(out[len("frame:"):])
	if r.Type() != ClientHello || r.StringView() != "hello" || r.Finish() != nil {
		t.Errorf("read back type %v, err %v", r.Type(), r.Err())
	}
}
