package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// Lane is the kind of delivery a message asks for. Each peer maps lanes to
// what it has: kcp has one reliable stream and out-of-band datagrams, QUIC
// has streams and datagrams, tickwire has channels with priorities.
type Lane uint8

const (
	// Ordered is reliable, ordered delivery (W1, W3, keepalive traffic).
	Ordered Lane = iota
	// Unreliable may be lost or reordered (W2).
	Unreliable
	// Critical is reliable and ordered, and should not wait behind Bulk (W4).
	Critical
	// Bulk is reliable and ordered, filling the spare bandwidth (W4).
	Bulk
	numLanes
)

func (l Lane) String() string {
	return [...]string{"ordered", "unreliable", "critical", "bulk"}[l]
}

// Options are what a workload asks of every peer.
type Options struct {
	// Keepalive is how often an idle connection proves it is alive: the
	// transport's own keepalive where it has one (QUIC, tickwire), a small
	// reliable message sent by the adapter otherwise (kcp).
	Keepalive time.Duration
	// MTU is the largest datagram a peer should send.
	MTU int
	// Unreliable says the workload uses the Unreliable lane (kcp needs FEC
	// for it).
	Unreliable bool
	// Bandwidth is the link's capacity in bytes per second (0: unknown),
	// for peers whose sending rate is configured (tickwire's bandwidth
	// budget). QUIC finds it by congestion control; kcp runs without a
	// limit (see kcpPeer).
	Bandwidth int64
}

// Peer is a transport under test. An implementation adapts one library to
// the lanes the workloads use; the sockets it is given are netsim-wrapped
// loopback UDP sockets, which it owns from then on.
type Peer interface {
	Listen(ctx context.Context, pc net.PacketConn, o Options) (Listener, error)
	Dial(ctx context.Context, pc net.PacketConn, remote net.Addr, o Options) (Conn, error)
}

// Listener accepts the connections of a Peer's server side.
type Listener interface {
	Accept(ctx context.Context) (Conn, error)
	Close() error
}

// Conn is one connection of a Peer. Send may block for flow control; it
// may be called concurrently for different lanes, but calls for one lane
// must not overlap. Receive returns whole messages, whatever lane they
// came on (the workload's header says which).
type Conn interface {
	Send(lane Lane, msg []byte) error
	Receive(ctx context.Context) ([]byte, error)
	Close() error
}

// errMessageTooLarge rejects a frame beyond maxFrame.
var errMessageTooLarge = errors.New("peers: message too large")

// maxFrame bounds a length-prefixed frame: the 16 MiB of W3 plus a header.
const maxFrame = 16<<20 + 1024

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

// header is the start of every workload message: the series it belongs
// to (a lane and a phase, see series), the sending connection, a sequence
// number and the send time in nanoseconds since the run's epoch (sender
// and receiver share one process and one clock).
type header struct {
	series series
	conn   uint16
	seq    uint32
	sent   time.Duration
}

const headerSize = 2 + 2 + 4 + 8

func (h header) put(b []byte) {
	b[0], b[1] = byte(h.series.lane), h.series.phase
	binary.BigEndian.PutUint16(b[2:], h.conn)
	binary.BigEndian.PutUint32(b[4:], h.seq)
	binary.BigEndian.PutUint64(b[8:], uint64(h.sent))
}

func parseHeader(b []byte) (header, bool) {
	if len(b) < headerSize || Lane(b[0]) >= numLanes {
		return header{}, false
	}
	return header{
		series: series{lane: Lane(b[0]), phase: b[1]},
		conn:   binary.BigEndian.Uint16(b[2:]),
		seq:    binary.BigEndian.Uint32(b[4:]),
		sent:   time.Duration(binary.BigEndian.Uint64(b[8:])),
	}, true
}

// series is a set of messages measured together: a lane, and a phase
// number for workloads that measure one lane under two conditions.
type series struct {
	lane  Lane
	phase uint8
}
