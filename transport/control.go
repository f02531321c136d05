package transport

import (
	"encoding/binary"
	"fmt"
)

// Control messages travel on channel 0 (reliable, ordered, critical). The
// first byte is the kind.
const (
	ctlHello      = 1 // version u16, channel digest u64
	ctlReply      = 2 // status u8; accept: token u32; reject: reason
	ctlReady      = 3 // token u32
	ctlDisconnect = 4 // reason
)

const (
	handshakeVersion = 1
	replyAccept      = 0
	replyReject      = 1
	maxReasonLen     = 200
)

// handshaker produces and checks the handshake messages. It is the seam
// where an authenticated handshake replaces the plaintext one.
type handshaker interface {
	// hello is the client's first message.
	hello() []byte
	// onHello checks a hello on the server. On error, reply is the
	// rejection to send.
	onHello(p []byte) (reply []byte, err error)
	// onReply checks the server's reply on the client and returns the
	// ready message.
	onReply(p []byte) (ready []byte, err error)
	// onReady checks the client's ready message on the server.
	onReady(p []byte) error
}

// plainHandshake is the plaintext hello / hello-reply / ready exchange: it
// checks the protocol version and that both sides configured the same
// channels, and the server's random token proves the client receives what
// the server sends to its address.
type plainHandshake struct {
	digest uint64
	token  uint32
}

func (h *plainHandshake) hello() []byte {
	b := []byte{ctlHello}
	b = binary.BigEndian.AppendUint16(b, handshakeVersion)
	return binary.BigEndian.AppendUint64(b, h.digest)
}

func (h *plainHandshake) onHello(p []byte) ([]byte, error) {
	if len(p) != 11 || p[0] != ctlHello {
		return rejection("malformed hello"), fmt.Errorf("%w: malformed hello", ErrHandshake)
	}
	if v := binary.BigEndian.Uint16(p[1:]); v != handshakeVersion {
		return rejection(fmt.Sprintf("unsupported version %d", v)), fmt.Errorf("%w: client version %d", ErrHandshake, v)
	}
	if d := binary.BigEndian.Uint64(p[3:]); d != h.digest {
		return rejection("channel configuration mismatch"), fmt.Errorf("%w: channel configuration mismatch", ErrHandshake)
	}
	reply := []byte{ctlReply, replyAccept}
	return binary.BigEndian.AppendUint32(reply, h.token), nil
}

func (h *plainHandshake) onReply(p []byte) ([]byte, error) {
	switch {
	case len(p) >= 2 && p[0] == ctlReply && p[1] == replyReject:
		return nil, fmt.Errorf("%w: rejected: %s", ErrHandshake, sanitize(p[2:]))
	case len(p) != 6 || p[0] != ctlReply || p[1] != replyAccept:
		return nil, fmt.Errorf("%w: malformed hello-reply", ErrHandshake)
	}
	h.token = binary.BigEndian.Uint32(p[2:])
	return binary.BigEndian.AppendUint32([]byte{ctlReady}, h.token), nil
}

func (h *plainHandshake) onReady(p []byte) error {
	if len(p) != 5 || p[0] != ctlReady || binary.BigEndian.Uint32(p[1:]) != h.token {
		return fmt.Errorf("%w: bad ready message", ErrHandshake)
	}
	return nil
}

func rejection(reason string) []byte {
	return append([]byte{ctlReply, replyReject}, truncate(reason)...)
}

func disconnectMessage(reason string) []byte {
	return append([]byte{ctlDisconnect}, truncate(reason)...)
}

func truncate(s string) string {
	if len(s) > maxReasonLen {
		return s[:maxReasonLen]
	}
	return s
}

// sanitize turns a peer's reason into printable text.
func sanitize(b []byte) string {
	if len(b) > maxReasonLen {
		b = b[:maxReasonLen]
	}
	return fmt.Sprintf("%q", b)
}
