package secure

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
)

// Key schedule labels (HKDF info strings). Every derived secret is bound to
// a label and, for handshake and traffic secrets, to a transcript hash.
const (
	extractSalt     = "tickwire secure v1"
	labelClientHS   = "c hs "
	labelServerHS   = "s hs "
	labelClientData = "c ap "
	labelServerData = "s ap "
	labelKey        = "key"
	labelIV         = "iv"
	labelKeyUpdate  = "ku"

	sigContextServer = "tickwire secure v1 server signature\x00"
	sigContextClient = "tickwire secure v1 client signature\x00"
)

const (
	secretSize = 32
	keySize    = 32 // AES-256
	ivSize     = 12 // GCM nonce
)

type secret = [secretSize]byte

// expand is HKDF-Expand-SHA256. It cannot fail for the lengths used here
// (at most 255·32 bytes).
func expand(prk []byte, info string, out []byte) {
	b, err := hkdf.Expand(sha256.New, prk, info, len(out))
	if err != nil {
		panic("secure: hkdf: " + err.Error())
	}
	copy(out, b)
}

// extract is HKDF-Extract-SHA256 of the X25519 shared secret.
func extract(shared []byte) []byte {
	prk, err := hkdf.Extract(sha256.New, shared, []byte(extractSalt))
	if err != nil {
		panic("secure: hkdf: " + err.Error())
	}
	return prk
}

// deriveSecret derives a labelled secret bound to a transcript hash.
func deriveSecret(prk []byte, label string, th *[sha256.Size]byte) (s secret) {
	expand(prk, label+string(th[:]), s[:])
	return s
}

// transcript hashes the concatenation of handshake messages.
func transcript(parts ...[]byte) (th [sha256.Size]byte) {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	h.Sum(th[:0])
	return th
}

// trafficKeys are an AES-256-GCM key and the IV its nonces are derived
// from, for one direction and one key phase.
type trafficKeys struct {
	aead cipher.AEAD
	iv   [ivSize]byte
}

func newTrafficKeys(s *secret) trafficKeys {
	var key [keySize]byte
	var k trafficKeys
	expand(s[:], labelKey, key[:])
	expand(s[:], labelIV, k.iv[:])
	block, err := aes.NewCipher(key[:])
	if err != nil {
		panic("secure: aes: " + err.Error())
	}
	if k.aead, err = cipher.NewGCM(block); err != nil {
		panic("secure: gcm: " + err.Error())
	}
	return k
}

// nonce is the IV XOR the 64-bit sequence in the low bytes (as in TLS 1.3
// and QUIC): unique per key for every sequence, so a datagram only opens
// under the sequence it was sealed with.
func (k *trafficKeys) nonce(n *[ivSize]byte, seq uint64) []byte {
	*n = k.iv
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], seq)
	for i := range s {
		n[ivSize-8+i] ^= s[i]
	}
	return n[:]
}

// nextSecret derives the secret of the next key phase. The old secret
// cannot be computed from the new one.
func nextSecret(s *secret) (n secret) {
	expand(s[:], labelKeyUpdate, n[:])
	return n
}
