package statesync

import (
	"crypto/sha256"
	"encoding/binary"
	"iter"
	"slices"

	"github.com/tickwire/tickwire/statesync/msg"
)

// LeafSize is the seed's MERKLE_LEAF_SIZE: a Merkle leaf covers at most 16
// entities. Here a leaf is a bucket of 16 consecutive ids (bucket =
// id/16), so the leaves of two diverging states line up by id even when
// one of them has an entity too many or too few (the seed's leaves of 16
// consecutive entities shift after the first missing one, and every leaf
// after it would look divergent).
const LeafSize = 16

// BucketOf is the Merkle bucket of an entity id.
func BucketOf(id uint32) uint32 { return id / LeafSize }

// Leaves appends the engine's Merkle leaves to dst: one per non-empty
// bucket, ascending, hashing the bucket's entity set. scratch is reused.
func Leaves(dst []msg.Leaf, e Engine, scratch []byte) ([]msg.Leaf, []byte) {
	return leaves(dst, e.Entities(), scratch)
}

func leaves(dst []msg.Leaf, entities iter.Seq2[uint32, []byte], scratch []byte) ([]msg.Leaf, []byte) {
	buf := scratch[:0]
	cur, open := uint32(0), false
	for id, data := range entities {
		if b := BucketOf(id); !open || b != cur {
			if open {
				dst = append(dst, msg.Leaf{Bucket: cur, Hash: LeafHash(buf)})
			}
			cur, open, buf = b, true, buf[:0]
		}
		buf = AppendEntity(buf, id, data)
	}
	if open {
		dst = append(dst, msg.Leaf{Bucket: cur, Hash: LeafHash(buf)})
	}
	return dst, buf
}

// LeafHash is a Merkle leaf's hash: the first 8 bytes of the SHA-256 of
// the bucket's entity set (finding another bucket with the same leaf
// takes about 2^64 tries).
func LeafHash(set []byte) uint64 {
	sum := sha256.Sum256(set)
	return binary.LittleEndian.Uint64(sum[:])
}

// LeavesDigest is the state digest of a state with these leaves: the
// SHA-256 of the leaves as MERKLE_LEAVES lists them. A source's leaves
// are checked against the digest the voters agreed on, and its entities
// against its leaves.
func LeavesDigest(leaves []msg.Leaf) msg.Digest {
	h := sha256.New()
	var b [12]byte
	for _, l := range leaves {
		binary.LittleEndian.PutUint32(b[:], l.Bucket)
		binary.LittleEndian.PutUint64(b[4:], l.Hash)
		h.Write(b[:])
	}
	var d msg.Digest
	h.Sum(d[:0])
	return d
}

// LeavesOf appends the Merkle leaves of an entity set to dst.
func LeavesOf(dst []msg.Leaf, set []byte) []msg.Leaf {
	dst, _ = leaves(dst, func(yield func(uint32, []byte) bool) {
		rd := ReadEntities(set)
		for e, ok := rd.Next(); ok && yield(e.ID, e.Data); e, ok = rd.Next() {
		}
	}, nil)
	return dst
}

// MerkleTree is a binary hash tree over a state's leaves, built as the
// seed's buildMerkleTree: halves of the leaf list, a node's hash the
// first 8 bytes of the SHA-256 of its children's. Two trees over the same buckets are
// compared top-down, visiting only the subtrees whose hashes differ.
type MerkleTree struct {
	leaves []msg.Leaf
	nodes  []uint64 // heap order: node i has children 2i+1, 2i+2
}

// NewMerkleTree builds the tree of leaves (ascending buckets).
func NewMerkleTree(leaves []msg.Leaf) *MerkleTree {
	t := &MerkleTree{leaves: leaves}
	if len(leaves) > 0 {
		t.nodes = make([]uint64, 4*len(leaves))
		t.build(0, 0, len(leaves))
	}
	return t
}

func (t *MerkleTree) build(node, lo, hi int) uint64 {
	if hi-lo == 1 {
		t.nodes[node] = t.leaves[lo].Hash
		return t.nodes[node]
	}
	mid := (lo + hi) / 2
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], t.build(2*node+1, lo, mid))
	binary.LittleEndian.PutUint64(b[8:], t.build(2*node+2, mid, hi))
	t.nodes[node] = LeafHash(b[:])
	return t.nodes[node]
}

// Root is the tree's root hash (0 for an empty state).
func (t *MerkleTree) Root() uint64 {
	if len(t.nodes) == 0 {
		return 0
	}
	return t.nodes[0]
}

// Divergent appends to dst the buckets in which the states of a and b
// differ, ascending, and returns how many tree nodes it compared. When the
// two trees cover the same buckets it descends from the root into
// differing subtrees only (O(d log n) for d divergent leaves); otherwise
// the bucket lists themselves differ and it merges the leaf lists.
func Divergent(dst []uint32, a, b *MerkleTree) ([]uint32, int) {
	if sameBuckets(a.leaves, b.leaves) {
		if len(a.leaves) == 0 {
			return dst, 0
		}
		return a.descend(dst, b, 0, 0, len(a.leaves), 0)
	}
	i, j := 0, 0
	for i < len(a.leaves) || j < len(b.leaves) {
		switch {
		case j == len(b.leaves) || i < len(a.leaves) && a.leaves[i].Bucket < b.leaves[j].Bucket:
			dst = append(dst, a.leaves[i].Bucket)
			i++
		case i == len(a.leaves) || b.leaves[j].Bucket < a.leaves[i].Bucket:
			dst = append(dst, b.leaves[j].Bucket)
			j++
		default:
			if a.leaves[i].Hash != b.leaves[j].Hash {
				dst = append(dst, a.leaves[i].Bucket)
			}
			i++
			j++
		}
	}
	return dst, len(a.leaves) + len(b.leaves)
}

func (t *MerkleTree) descend(dst []uint32, o *MerkleTree, node, lo, hi, visited int) ([]uint32, int) {
	visited++
	if t.nodes[node] == o.nodes[node] {
		return dst, visited
	}
	if hi-lo == 1 {
		return append(dst, t.leaves[lo].Bucket), visited
	}
	mid := (lo + hi) / 2
	dst, visited = t.descend(dst, o, 2*node+1, lo, mid, visited)
	return t.descend(dst, o, 2*node+2, mid, hi, visited)
}

func sameBuckets(a, b []msg.Leaf) bool {
	return slices.EqualFunc(a, b, func(x, y msg.Leaf) bool { return x.Bucket == y.Bucket })
}
