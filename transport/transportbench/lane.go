package transportbench

import (
	"context"
	"net"
	"time"
)

// Lane is the kind of delivery a message asks for. Each peer maps lanes to
// what it has: kcp has one reliable stream and out-of-band datagrams, QUIC
// has streams and datagrams, tickwire has channels with priorities.
type Lane uint8

const (
	// Ordered is reliable, ordered delivery (W1, W3).
	Ordered Lane = iota
	// Unreliable may be lost or reordered (W2).
	Unreliable
	// Critical is reliable and ordered, and should not wait behind Bulk (W4).
	Critical
	// Bulk is reliable and ordered, filling the spare bandwidth (W4).
	Bulk
	// NumLanes is the number of lanes.
	NumLanes
)

func (l Lane) String() string {
	if l >= NumLanes {
		return "lane?"
	}
	return [...]string{"ordered", "unreliable", "critical", "bulk"}[l]
}

// MaxMessageSize is the largest message a workload sends (W3's 16 MiB),
// with room for framing.
const MaxMessageSize = 16<<20 + 1024

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
	// limit.
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
