package merkle

import (
	"encoding/binary"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Pair is the hash of an interior node from its children's.
func Pair(left, right uint64) uint64 {
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[0:], left)
	binary.LittleEndian.PutUint64(buf[8:], right)
	return xxhash.Sum64(buf[:])
}

// Width is the number of leaves of a tree over n leaves once padded: the
// next power of two, at least 1.
func Width(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// Depth is the depth of the leaves of a tree over n leaves (0 for one
// leaf: the root is the leaf).
func Depth(n int) int { return bits.Len(uint(Width(n))) - 1 }

// Node is the hash of node (depth, index) of a tree stored level by
// level, padded leaves first and the root last (the layout of sim's
// MerkleTree), of the given width. ok is false for a node outside it.
func Node(nodes []uint64, width, depth, index int) (uint64, bool) {
	leaves := bits.Len(uint(width)) - 1
	if depth < 0 || depth > leaves || index < 0 || index >= 1<<depth || len(nodes) != 2*width-1 {
		return 0, false
	}
	lo := 0
	for w := width; w > 1<<depth; w /= 2 {
		lo += w
	}
	return nodes[lo+index], true
}
