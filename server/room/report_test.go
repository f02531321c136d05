package room

import (
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
