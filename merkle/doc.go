// Package merkle is the shape and the pair hash of the fast (64-bit)
// Merkle trees that a lockstep game's state hash is the root of, shared
// by the game that builds the tree (package sim) and the relay that walks
// two clients' trees down to the leaf where they differ (lockstep/relay)
// without either importing the other.
//
// A tree over n leaves is padded to a width of the next power of two;
// padding leaves hash to 0. Nodes are numbered by depth (0 is the root,
// Depth(n) the leaves) and index within the depth (0 leftmost). An
// interior node is Pair(left child, right child):
//
//	Pair(a, b) = xxHash64(a as u64 little endian ‖ b as u64 little endian)
//
// The fast tree is not collision resistant against a chosen input: it
// localises accidental divergence, and a walk that checks every answer
// against the parent already claimed stops a liar who cannot find a
// second preimage of xxHash64 (see lockstep/relay's desync walk).
package merkle
