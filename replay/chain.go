package replay

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
)

// sigContext separates replay signatures from every other use of the
// server's key.
const sigContext = "tickwire replay signature v1\x00"

// chainStart is the chain value before the first signature: the SHA-256
// of the file's bytes up to the first record (magic, version, header).
func chainStart(head []byte) []byte {
	s := sha256.Sum256(head)
	return s[:]
}

// signedMessage is what a signature covers: the context, the previous
// link (chainStart or the previous signature), the last tick the
// signature vouches for and the SHA-256 of the records since the
// previous link.
func signedMessage(prev []byte, tick uint64, segment [sha256.Size]byte) []byte {
	m := make([]byte, 0, len(sigContext)+len(prev)+8+sha256.Size)
	m = append(m, sigContext...)
	m = append(m, prev...)
	m = binary.LittleEndian.AppendUint64(m, tick)
	return append(m, segment[:]...)
}

// link is one signature of a file as read: enough to check it later.
type link struct {
	firstTick, tick uint64 // the frames it covers: firstTick..tick
	message         []byte
	sig             []byte
}

func (l *link) verify(key ed25519.PublicKey) bool { return ed25519.Verify(key, l.message, l.sig) }
