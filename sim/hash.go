package sim

import (
	"math/bits"
	"strconv"

	"github.com/cespare/xxhash/v2"
	"github.com/tickwire/tickwire/merkle"
	"github.com/tickwire/tickwire/protocol"
)

// LeafLabel names the entity group a Merkle leaf covers. Leaf 0 is the
// world record (tick, RNG, next id, credits); then come the neutral
// structures, the decoration, and each player's units and structures.
type LeafLabel struct {
	World    bool
	Owner    protocol.PlayerID
	Category Category
}

// String renders the label, e.g. "player 3 units".
func (l LeafLabel) String() string {
	switch {
	case l.World:
		return "world"
	case l.Owner == Neutral:
		return "neutral " + l.Category.String()
	default:
		return "player " + strconv.Itoa(int(l.Owner)) + " " + l.Category.String()
	}
}

func leafCount(players int) int { return 3 + 2*players }

// leafOf returns the leaf index of an entity of the given owner and category.
func leafOf(owner protocol.PlayerID, c Category) int {
	switch c {
	case CategoryNeutralStructure:
		return 1
	case CategoryDecoration:
		return 2
	case CategoryUnit:
		return 3 + 2*int(owner-1)
	default:
		return 4 + 2*int(owner-1)
	}
}

func leafLabel(i int) LeafLabel {
	switch i {
	case 0:
		return LeafLabel{World: true}
	case 1:
		return LeafLabel{Category: CategoryNeutralStructure}
	case 2:
		return LeafLabel{Category: CategoryDecoration}
	}
	c := CategoryUnit
	if i%2 == 0 {
		c = CategoryStructure
	}
	return LeafLabel{Owner: protocol.PlayerID((i-3)/2 + 1), Category: c}
}

// stateHasher is the reusable scratch space of StateHash.
type stateHasher struct {
	leaves [][]byte // serialized records per leaf
	nodes  []uint64 // the tree, level by level: padded leaves first, root last
	width  int      // leaves padded to a power of two
}

func (h *stateHasher) init(players int) {
	n := leafCount(players)
	h.leaves = make([][]byte, n)
	h.width = merkle.Width(n)
	h.nodes = make([]uint64, 2*h.width-1)
}

// StateHash is the 64-bit hash of the whole simulation state, computed
// afresh: the root of the Merkle tree that MerkleTree returns. Two
// simulations are in sync exactly when (barring collisions) their hashes
// are equal.
func (s *Sim) StateHash() uint64 {
	s.hashTree()
	return s.hasher.nodes[len(s.hasher.nodes)-1]
}

// hashTree fills s.hasher.nodes: xxHash64 of each leaf's canonical bytes,
// then xxHash64 of each pair of children (16 bytes, little endian) up to
// the root. Padding leaves hash to 0.
func (s *Sim) hashTree() {
	h := &s.hasher
	for i := range h.leaves {
		h.leaves[i] = h.leaves[i][:0]
	}
	h.leaves[0] = s.appendWorld(h.leaves[0])
	for i := range s.states {
		e := &s.states[i]
		l := leafOf(e.Owner, rulesOf(e.Type).Category)
		buf := h.leaves[l]
		n := len(buf)
		buf = grow(buf, entityRecordSize)
		putEntity(buf[n:], e, &s.behav[i])
		h.leaves[l] = buf
	}
	for i := range h.width {
		h.nodes[i] = 0
		if i < len(h.leaves) {
			h.nodes[i] = xxhash.Sum64(h.leaves[i])
		}
	}
	combine(h.nodes, h.width)
}

// grow extends b by n bytes, reallocating with room to spare if needed.
func grow(b []byte, n int) []byte {
	if len(b)+n > cap(b) {
		nb := make([]byte, len(b), 2*cap(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

// combine fills the interior levels of a tree whose first width entries are
// the leaves.
func combine(nodes []uint64, width int) {
	lo := 0
	for w := width; w > 1; w /= 2 {
		for i := 0; i < w; i += 2 {
			nodes[lo+w+i/2] = hashPair(nodes[lo+i], nodes[lo+i+1])
		}
		lo += w
	}
}

func hashPair(a, b uint64) uint64 { return merkle.Pair(a, b) }

// MerkleTree is the state hash as a tree over entity groups, for finding
// where two diverged simulations differ in a few logarithmic steps
// instead of comparing whole snapshots.
type MerkleTree struct {
	labels []LeafLabel
	nodes  []uint64 // padded leaves, then each level up to the root
	width  int
}

// MerkleTree computes the state's Merkle tree; its Root equals StateHash.
func (s *Sim) MerkleTree() *MerkleTree {
	s.hashTree()
	t := &MerkleTree{
		labels: make([]LeafLabel, len(s.hasher.leaves)),
		nodes:  append([]uint64(nil), s.hasher.nodes...),
		width:  s.hasher.width,
	}
	for i := range t.labels {
		t.labels[i] = leafLabel(i)
	}
	return t
}

// Root is the tree's root hash.
func (t *MerkleTree) Root() uint64 { return t.nodes[len(t.nodes)-1] }

// Leaves is the number of (unpadded) leaves.
func (t *MerkleTree) Leaves() int { return len(t.labels) }

// Leaf returns the label and hash of leaf i.
func (t *MerkleTree) Leaf(i int) (LeafLabel, uint64) { return t.labels[i], t.nodes[i] }

// ProofPath returns the sibling hashes from leaf i up to (not including) the
// root: with the leaf's hash they recompute the root (see VerifyProof).
func (t *MerkleTree) ProofPath(i int) []uint64 {
	var path []uint64
	lo := 0
	for w := t.width; w > 1; w /= 2 {
		path = append(path, t.nodes[lo+(i^1)])
		lo += w
		i /= 2
	}
	return path
}

// VerifyProof reports whether leafHash at index leaf, combined with path,
// yields root.
func VerifyProof(root uint64, leaf int, leafHash uint64, path []uint64) bool {
	h := leafHash
	for _, sib := range path {
		if leaf%2 == 0 {
			h = hashPair(h, sib)
		} else {
			h = hashPair(sib, h)
		}
		leaf /= 2
	}
	return h == root
}

// DiffTrees returns, in ascending order, the leaves where a and b differ,
// found by descending only into differing subtrees, as peers exchanging
// node hashes would. Trees of different shapes differ everywhere.
func DiffTrees(a, b *MerkleTree) []int {
	if a.width != b.width || len(a.labels) != len(b.labels) {
		all := make([]int, max(len(a.labels), len(b.labels)))
		for i := range all {
			all[i] = i
		}
		return all
	}
	var out []int
	// offsets[d] is where depth d (0 = root) starts in nodes.
	depth := bits.Len(uint(a.width)) - 1
	offsets := make([]int, depth+1)
	for d, lo, w := depth, 0, a.width; d >= 0; d, w = d-1, w/2 {
		offsets[d] = lo
		lo += w
	}
	var walk func(d, i int)
	walk = func(d, i int) {
		if a.nodes[offsets[d]+i] == b.nodes[offsets[d]+i] {
			return
		}
		if d == depth {
			if i < len(a.labels) {
				out = append(out, i)
			}
			return
		}
		walk(d+1, 2*i)
		walk(d+1, 2*i+1)
	}
	walk(0, 0)
	return out
}
