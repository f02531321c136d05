package transport

// The versions of the transport's wire formats, for a binary to report
// ("tickwire version"). A plaintext listener answers a datagram of another
// datagram version with a version refusal (versionrefusal.go), and a
// dialing client that gets one fails with secure.ErrVersion naming both;
// a hello of another version is rejected with "unsupported version".
const (
	// DatagramVersion is the first byte of every datagram.
	DatagramVersion = protocolVersion
	// HelloVersion is the version the control channel's hello carries.
	HelloVersion = handshakeVersion
)
