package merkle

import "testing"

func TestShape(t *testing.T) {
	for _, c := range []struct{ n, width, depth int }{{0, 1, 0}, {1, 1, 0}, {2, 2, 1}, {3, 4, 2}, {11, 16, 4}, {16, 16, 4}, {17, 32, 5}} {
		if w, d := Width(c.n), Depth(c.n); w != c.width || d != c.depth {
			t.Errorf("n=%d: width %d depth %d, want %d %d", c.n, w, d, c.width, c.depth)
		}
	}
}

// TestNode builds a tree of width 4 by hand and reads every node back.
func TestNode(t *testing.T) {
	l := []uint64{1, 2, 3, 0}
	a, b := Pair(l[0], l[1]), Pair(l[2], l[3])
	nodes := append(append([]uint64(nil), l...), a, b, Pair(a, b))
	want := map[[2]int]uint64{{0, 0}: Pair(a, b), {1, 0}: a, {1, 1}: b, {2, 0}: 1, {2, 1}: 2, {2, 2}: 3, {2, 3}: 0}
	for k, v := range want {
		if got, ok := Node(nodes, 4, k[0], k[1]); !ok || got != v {
			t.Errorf("node %v = %x %v, want %x", k, got, ok, v)
		}
	}
	for _, k := range [][2]int{{-1, 0}, {3, 0}, {1, 2}, {2, -1}} {
		if _, ok := Node(nodes, 4, k[0], k[1]); ok {
			t.Errorf("node %v outside the tree read", k)
		}
	}
	if Pair(1, 2) == Pair(2, 1) {
		t.Error("Pair is symmetric")
	}
}
