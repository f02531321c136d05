package room

import (
	"encoding/base64"
	"slices"
	"testing"
)

// TestRing against a slice keeping the last n pushes, for every
// capacity and count up to a few wraps.
func TestRing(t *testing.T) {
	for n := range 6 {
		r := NewRing[int](n)
		var all []int
		for i := range 4*n + 3 {
			r.Push(i)
			all = append(all, i)
			want := all[max(len(all)-n, 0):]
			if got := r.AppendTo(nil); !slices.Equal(got, want) || r.Len() != len(want) {
				t.Fatalf("cap %d after %d pushes: %v (len %d), want %v", n, i+1, got, r.Len(), want)
			}
		}
	}
	var zero Ring[int]
	zero.Push(1)
	if zero.Len() != 0 {
		t.Error("the zero ring holds a value")
	}
}

// TestCellBitmap: the bitmap of a map's cells, bit y×width+x, least
// significant first; nothing beyond MaxMapCells.
func TestCellBitmap(t *testing.T) {
	got := CellBitmap(3, 3, func(x, y int) bool { return x == y || (x == 2 && y == 0) })
	// cells 0, 2, 4, 8: 0b0001_0101, 0b1
	if want := base64.StdEncoding.EncodeToString([]byte{0x15, 0x01}); got != want {
		t.Fatalf("bitmap %q, want %q", got, want)
	}
	if b := CellBitmap(257, 256, func(int, int) bool { return true }); b != "" {
		t.Fatalf("a map beyond MaxMapCells has a bitmap of %d characters", len(b))
	}
	if b := CellBitmap(256, 256, func(int, int) bool { return true }); len(b) != base64.StdEncoding.EncodedLen(MaxMapCells/8) {
		t.Fatalf("a map of exactly MaxMapCells has a bitmap of %d characters", len(b))
	}
}
