package secure

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
)

// Peer is what the handshake proved about the client.
type Peer struct {
	// Key is the client's Ed25519 identity key; the client signed the
	// handshake transcript with it.
	Key ed25519.PublicKey
	// Token is the verified connect token, or nil when the client sent none.
	Token *Token
}

// signTranscript signs a transcript hash under a context string that
// separates the client's signatures from the server's.
func signTranscript(priv ed25519.PrivateKey, context string, th *[sha256.Size]byte) []byte {
	return ed25519.Sign(priv, append([]byte(context), th[:]...))
}

func verifyTranscript(pub ed25519.PublicKey, context string, th *[sha256.Size]byte, sig []byte) bool {
	return ed25519.Verify(pub, append([]byte(context), th[:]...), sig)
}

// sealIdentity appends to msg (the packet's clear part, which it
// authenticates) the identity key and transcript signature sealed under a
// handshake secret. Each handshake secret seals exactly one message, so the
// fixed nonce (sequence 0) is never reused.
func sealIdentity(msg []byte, s *secret, pub ed25519.PublicKey, sig []byte) []byte {
	k := newTrafficKeys(s)
	var n [ivSize]byte
	pt := make([]byte, 0, KeySize+sigSize)
	pt = append(append(pt, pub...), sig...)
	return k.aead.Seal(msg, k.nonce(&n, 0), pt, clone(msg))
}

// openIdentity opens a sealed identity.
func openIdentity(s *secret, clear, sealed []byte) (ed25519.PublicKey, []byte, error) {
	k := newTrafficKeys(s)
	var n [ivSize]byte
	pt, err := k.aead.Open(nil, k.nonce(&n, 0), sealed, clear)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: sealed identity", ErrAuth)
	}
	return ed25519.PublicKey(pt[:KeySize]), pt[KeySize:], nil
}
