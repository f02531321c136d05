package room

import "crypto/ed25519"

// PlayerKeys are the seats' Ed25519 identities from the secure
// handshake, by seat; nil for a plaintext connection.
func (p Params) PlayerKeys() []ed25519.PublicKey {
	keys := make([]ed25519.PublicKey, len(p.Seats))
	for i, st := range p.Seats {
		if st.Conn == nil {
			continue
		}
		if sec, ok := st.Conn.Security(); ok {
			keys[i] = sec.PeerKey
		}
	}
	return keys
}
