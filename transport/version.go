package transport

// The versions of the transport's wire formats, for a binary to report
// ("tickwire version"). A peer of another datagram version is dropped; a
// hello of another version is rejected with "unsupported version".
const (
	// DatagramVersion is the first byte of every datagram.
	DatagramVersion = protocolVersion
	// HelloVersion is the version the control channel's hello carries.
	HelloVersion = handshakeVersion
)
