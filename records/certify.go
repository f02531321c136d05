package records

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// certContext separates match-result signatures from anything else the
// server's key signs.
const certContext = "tickwire match result v1\n"

// ErrBadSignature is a certificate whose signature does not verify.
var ErrBadSignature = errors.New("records: match result signature invalid")

// Certificate is a match record signed by the server.
type Certificate struct {
	Record    Record `json:"record"`
	ServerKey string `json:"server_key"` // hex Ed25519 public key
	Signature string `json:"signature"`  // hex Ed25519 signature
}

func signedBytes(r Record) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append([]byte(certContext), b...), nil
}

// Certify signs r with the server's key.
func Certify(r Record, key ed25519.PrivateKey) (Certificate, error) {
	msg, err := signedBytes(r)
	if err != nil {
		return Certificate{}, err
	}
	return Certificate{Record: r, ServerKey: hex.EncodeToString(key.Public().(ed25519.PublicKey)),
		Signature: hex.EncodeToString(ed25519.Sign(key, msg))}, nil
}

// Verify checks c's signature. With a non-nil want it also checks that the
// certificate was signed by that key (a player pins its server's key);
// without it only that the record matches the key the certificate names.
func Verify(c Certificate, want ed25519.PublicKey) error {
	pub, err := hex.DecodeString(c.ServerKey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: bad server key", ErrBadSignature)
	}
	if want != nil && !ed25519.PublicKey(pub).Equal(want) {
		return fmt.Errorf("%w: signed by %s, not the expected server", ErrBadSignature, c.ServerKey)
	}
	sig, err := hex.DecodeString(c.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("%w: malformed signature", ErrBadSignature)
	}
	msg, err := signedBytes(c.Record)
	if err != nil {
		return err
	}
	if !ed25519.Verify(pub, msg, sig) {
		return ErrBadSignature
	}
	return nil
}
