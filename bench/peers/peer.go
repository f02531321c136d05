package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/tickwire/tickwire/transport/transportbench"
)

// The adapters implement the workload harness's interfaces.
type (
	Lane     = transportbench.Lane
	Options  = transportbench.Options
	Peer     = transportbench.Peer
	Listener = transportbench.Listener
	Conn     = transportbench.Conn
)

const (
	Unreliable = transportbench.Unreliable
	numLanes   = transportbench.NumLanes
)

// errMessageTooLarge rejects a frame beyond maxFrame.
var errMessageTooLarge = errors.New("peers: message too large")

// maxFrame bounds a length-prefixed frame: the largest workload message.
const maxFrame = transportbench.MaxMessageSize

// appendFrame appends msg with a 4-byte big-endian length prefix, the
// framing the stream-based adapters use to keep message boundaries. Each
// frame is written with one Write, so the prefix never travels alone.
func appendFrame(dst, msg []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(msg)))
	return append(dst, msg...)
}

// readFrame reads one frame made by appendFrame.
func readFrame(r io.Reader) ([]byte, error) {
	var p [4]byte
	if _, err := io.ReadFull(r, p[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(p[:])
	if n > maxFrame {
		return nil, fmt.Errorf("%w: %d bytes", errMessageTooLarge, n)
	}
	msg := make([]byte, n)
	_, err := io.ReadFull(r, msg)
	return msg, err
}
