package relay

import (
	"testing"

	"fmt"
	"github.com/cockroachdb/datadriven"
	"slices"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/merkle"
)

// walkTree is a scripted client's game state for the desync walk: leaf i
// of tick k holds one entity, id 10i+1, whose field "v" is 1000k+i+1
// (plus the client's corruption) and field "w" 0; a leaf hashes to
// merkle.Pair(v, i). The state hash is the tree's root.
type walkTree struct {
	leaves int
	// corrupt adds by[i] to leaf i's "v" from tick from on.
	corrupt map[int]int64
	from    uint64
	// lie is how the client answers the walk: "" honestly, "majority"
	// with the uncorrupted tree's nodes below the root (claiming to agree
	// on the way down), "silent" not at all, "flip" swapping every pair
	// of children it sends (consistent with nothing).
	lie string
	// mutate, if set, rewrites (or, returning nil, drops) every answer
	// the client sends in the walk: a fuzzed liar.
	mutate func(msg.Message) msg.Message
}

func (t *walkTree) value(tick uint64, i int, honest bool) int64 {
	v := int64(1000*tick) + int64(i) + 1
	if !honest && tick >= t.from {
		v += t.corrupt[i]
	}
	return v
}

// nodes returns the tree of tick, level by level (merkle.Node's layout).
func (t *walkTree) nodes(tick uint64, honest bool) []uint64 {
	w := merkle.Width(t.leaves)
	nodes := make([]uint64, 2*w-1)
	for i := range t.leaves {
		nodes[i] = merkle.Pair(uint64(t.value(tick, i, honest)), uint64(i))
	}
	lo := 0
	for width := w; width > 1; width /= 2 {
		for i := 0; i < width; i += 2 {
			nodes[lo+width+i/2] = merkle.Pair(nodes[lo+i], nodes[lo+i+1])
		}
		lo += width
	}
	return nodes
}

func (t *walkTree) node(tick uint64, depth, index int) uint64 {
	h, _ := merkle.Node(t.nodes(tick, t.lie == "majority" && depth > 0), merkle.Width(t.leaves), depth, index)
	return h
}

// answerWalk is a client's answer to a DesyncDebugRequest or MerkleQuery.
func (n *simNet) answerWalk(c *simClient, f frameCopy) {
	if m := c.tree.answer(f); m != nil {
		if c.tree.mutate != nil {
			m = c.tree.mutate(m)
		}
		if m != nil {
			n.toRelay(c, m, 0)
		}
	}
}

// answer is the client's answer to a walk message, nil for none.
func (t *walkTree) answer(f frameCopy) msg.Message {
	if t.lie == "silent" {
		return nil
	}
	d := merkle.Depth(t.leaves)
	children := func(depth, index int) (uint64, uint64) {
		l, r := t.node(f.tick, depth+1, 2*index), t.node(f.tick, depth+1, 2*index+1)
		if t.lie == "flip" {
			l, r = r, l
		}
		return l, r
	}
	switch {
	case f.kind == kDebugRequest:
		rep := &msg.DesyncDebugReport{Tick: f.tick, StateHash: t.node(f.tick, 0, 0), RNG: f.tick * 7, Leaves: uint32(t.leaves)}
		if d > 0 {
			l, r := children(0, 0)
			rep.Children = []uint64{l, r}
		}
		return rep
	case int(f.depth) < d:
		l, r := children(int(f.depth), int(f.index))
		return &msg.MerkleNodes{Tick: f.tick, Depth: f.depth, Index: f.index, Left: l, Right: r}
	default:
		i := int(f.index)
		v := t.value(f.tick, i, t.lie == "majority")
		return &msg.LeafEntities{Tick: f.tick, Leaf: f.index, Label: fmt.Sprintf("group %d", i), Fields: []string{"v", "w"},
			Entities: []msg.LeafEntity{{ID: uint32(10*i + 1), Values: []int64{v, 0}}}}
	}
}

// withTree gives every client a state tree of the given leaves.
func (n *simNet) withTree(leaves int) {
	for _, c := range n.clients {
		c.tree = &walkTree{leaves: leaves, corrupt: map[int]int64{}}
	}
}

// corrupt makes client c's leaves differ from tick from on.
func (c *simClient) corrupt(from uint64, leaves []int, by int64) {
	c.tree.from = from
	for _, l := range slices.Compact(leaves) {
		c.tree.corrupt[l] += by
	}
}

// cmdWalk runs the transcript commands of the desync walk.
func cmdWalk(t *testing.T, td *datadriven.TestData, n *simNet) {
	switch td.Cmd {
	case "tree":
		var leaves int
		td.ScanArgs(t, "leaves", &leaves)
		n.withTree(leaves)
	case "corrupt":
		c := argClient(t, td, n)
		if c.tree == nil {
			td.Fatalf(t, "corrupt before tree")
		}
		var from uint64
		if td.HasArg("from") {
			td.ScanArgs(t, "from", &from)
		}
		by := int64(1)
		if td.HasArg("by") {
			td.ScanArgs(t, "by", &by)
		}
		var leaves []int
		for _, l := range argList(t, td, "leaf") {
			leaves = append(leaves, int(l))
		}
		c.corrupt(from, leaves, by)
	case "lie":
		c := argClient(t, td, n)
		c.tree.lie = argStr(td, "mode", "")
	}
}
