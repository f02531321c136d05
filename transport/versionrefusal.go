package transport

import (
	"encoding/binary"
	"fmt"
	"net"

	"github.com/tickwire/tickwire/secure"
)

// A version refusal is a plaintext server's answer to a datagram of
// another version. Every version keeps it and the two fields before the
// sequence of its datagram header as they are, so peers of different
// versions can tell each other so:
//
//	version(1) | FF | connection id(4) | hello version(2)      8 bytes
//
// version and hello version are the server's DatagramVersion and
// HelloVersion; the connection id is the refused datagram's. The flags
// byte FF is no datagram's (the header flags' unknown bits are refused).
const (
	refusalFlags = 0xFF
	refusalLen   = 8
)

// appendVersionRefusal appends this version's refusal of a datagram of
// connection id.
func appendVersionRefusal(b []byte, id uint32) []byte {
	b = append(b, protocolVersion, refusalFlags)
	b = binary.BigEndian.AppendUint32(b, id)
	return binary.BigEndian.AppendUint16(b, handshakeVersion)
}

// parseVersionRefusal reads a refusal of any version.
func parseVersionRefusal(b []byte) (version uint8, hello uint16, id uint32, ok bool) {
	if len(b) != refusalLen || b[1] != refusalFlags {
		return 0, 0, 0, false
	}
	return b[0], binary.BigEndian.Uint16(b[6:]), binary.BigEndian.Uint32(b[2:]), true
}

// foreignDatagram reports whether a plaintext listener should refuse b: a
// datagram of another version, at least a header long (the refusal is
// never larger than what it answers), neither a refusal itself (two
// servers never answer each other) nor a secure handshake packet (a peer
// of the other mode, not of another version).
func foreignDatagram(b []byte) (id uint32, ok bool) {
	if len(b) < headerMinLen || b[0] == protocolVersion || b[1] == refusalFlags || secure.Classify(b) != secure.KindNone {
		return 0, false
	}
	return binary.BigEndian.Uint32(b[2:]), true
}

// versionError is the handshake failure a client's refusal names.
func versionError(version uint8, hello uint16) error {
	return fmt.Errorf("%w: %w: the server speaks datagram version %d (hello %d), this client %d (hello %d)",
		ErrHandshake, secure.ErrVersion, version, hello, protocolVersion, handshakeVersion)
}

// refuseVersion answers a listener's datagram of another version with a
// version refusal.
func (ep *endpoint) refuseVersion(b []byte, addr net.Addr) {
	if ep.listener == nil {
		return
	}
	if id, ok := foreignDatagram(b); ok {
		ep.write(addr, [][]byte{appendVersionRefusal(make([]byte, 0, refusalLen), id)})
	}
}
