package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestUvarintEncoding(t *testing.T) {
	tests := []struct {
		v    uint64
		wire []byte
	}{
		{0, []byte{0x00}},
		{1, []byte{0x01}},
		{127, []byte{0x7f}},
		{128, []byte{0x80, 0x01}},
		{300, []byte{0xac, 0x02}},
		{16383, []byte{0xff, 0x7f}},
		{16384, []byte{0x80, 0x80, 0x01}},
		{math.MaxUint32, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
		{1 << 63, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
		{math.MaxUint64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
	}
	for _, tt := range tests {
		got := AppendUvarint([]byte{0xee}, tt.v)
		if !bytes.Equal(got[1:], tt.wire) || got[0] != 0xee {
			t.Errorf("AppendUvarint(%d) = % x, want ee % x", tt.v, got, tt.wire)
		}
		if n := UvarintLen(tt.v); n != len(tt.wire) {
			t.Errorf("UvarintLen(%d) = %d, want %d", tt.v, n, len(tt.wire))
		}
		v, n, err := Uvarint(append(tt.wire, 0x55))
		if err != nil || v != tt.v || n != len(tt.wire) {
			t.Errorf("Uvarint(% x) = %d, %d, %v; want %d, %d, nil", tt.wire, v, n, err, tt.v, len(tt.wire))
		}
	}
}

func TestUvarintErrors(t *testing.T) {
	tests := []struct {
		name string
		wire []byte
		want error
	}{
		{"empty", nil, ErrShort},
		{"unterminated", []byte{0x80}, ErrShort},
		{"unterminated long", []byte{0xff, 0xff, 0xff}, ErrShort},
		{"trailing zero group", []byte{0x80, 0x00}, ErrOverlong},
		{"non-minimal zero", []byte{0x81, 0x80, 0x00}, ErrOverlong},
		{"eleven bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, ErrOverlong},
		{"65 bits", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, ErrOverflow},
		{"tenth byte 0x7f", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, ErrOverflow},
	}
	for _, tt := range tests {
		v, n, err := Uvarint(tt.wire)
		if !errors.Is(err, tt.want) || v != 0 || n != 0 {
			t.Errorf("%s: Uvarint(% x) = %d, %d, %v; want 0, 0, %v", tt.name, tt.wire, v, n, err, tt.want)
		}
	}
}

func TestZigZag(t *testing.T) {
	tests := []struct {
		v int64
		u uint64
	}{
		{0, 0}, {-1, 1}, {1, 2}, {-2, 3}, {2, 4}, {-64, 127}, {64, 128},
		{math.MaxInt64, math.MaxUint64 - 1}, {math.MinInt64, math.MaxUint64},
	}
	for _, tt := range tests {
		if u := ZigZag(tt.v); u != tt.u {
			t.Errorf("ZigZag(%d) = %d, want %d", tt.v, u, tt.u)
		}
		if v := UnZigZag(tt.u); v != tt.v {
			t.Errorf("UnZigZag(%d) = %d, want %d", tt.u, v, tt.v)
		}
		v, n, err := Varint(AppendVarint(nil, tt.v))
		if err != nil || v != tt.v || n != UvarintLen(tt.u) {
			t.Errorf("Varint(AppendVarint(%d)) = %d, %d, %v", tt.v, v, n, err)
		}
	}
}

// TestUvarintMatchesReference compares the strict decoder with
// encoding/binary on random byte strings: it must accept exactly the
// inputs binary.Uvarint accepts in their shortest form, with the same result.
func TestUvarintMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.Uint32())
			if rng.IntN(3) > 0 {
				b[i] |= 0x80 // favour long encodings
			}
			if rng.IntN(6) == 0 {
				b[i] &^= 0x7f
			}
		}
		checkUvarintAgainstReference(t, b)
	}
}

func checkUvarintAgainstReference(t *testing.T, b []byte) {
	t.Helper()
	v, n, err := Uvarint(b)
	rv, rn := binary.Uvarint(b)
	canonical := rn > 0 && bytes.Equal(AppendUvarint(nil, rv), b[:rn])
	switch {
	case err == nil && (!canonical || v != rv || n != rn):
		t.Fatalf("Uvarint(% x) = %d, %d; reference %d, %d, canonical %v", b, v, n, rv, rn, canonical)
	case err != nil && canonical:
		t.Fatalf("Uvarint(% x) rejected a canonical encoding: %v", b, err)
	}
}

func FuzzUvarint(f *testing.F) {
	for _, v := range []uint64{0, 1, 127, 128, 300, math.MaxUint32, math.MaxUint64} {
		f.Add(AppendUvarint(nil, v))
	}
	f.Add([]byte{0x80, 0x00})
	f.Fuzz(checkUvarintAgainstReference)
}
