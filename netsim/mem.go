package netsim

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
)

// MemQueue is the number of unread packets a MemConn holds; further
// packets sent to it are dropped, like a full socket receive buffer.
const MemQueue = 1024

// ErrAddrInUse is returned by MemNetwork.ListenPacket for a taken address.
var ErrAddrInUse = errors.New("netsim: address already in use")

// MemNetwork is an in-memory datagram network for tests: endpoints
// created by ListenPacket exchange packets through bounded channels, with
// no sockets, so it works inside testing/synctest bubbles. It never loses,
// delays or reorders a packet by itself (wrap an endpoint with Wrap for
// that), except when the receiver's queue is full. Packets to an address
// nobody listens on vanish, as with UDP.
type MemNetwork struct {
	mu       sync.Mutex
	conns    map[netip.AddrPort]*MemConn
	nextPort uint16
}

// NewMemNetwork returns an empty network.
func NewMemNetwork() *MemNetwork {
	return &MemNetwork{conns: make(map[netip.AddrPort]*MemConn), nextPort: 1}
}

// ListenPacket creates an endpoint at addr, an "ip:port" string. An empty
// addr means 192.0.2.1 with a free port, as does port 0 for the given ip.
func (n *MemNetwork) ListenPacket(addr string) (*MemConn, error) {
	// 192.0.2.1 lies in TEST-NET-1 (RFC 5737), which no real host uses.
	ap := netip.AddrPortFrom(netip.AddrFrom4([4]byte{192, 0, 2, 1}), 0)
	if addr != "" {
		var err error
		if ap, err = netip.ParseAddrPort(addr); err != nil {
			return nil, fmt.Errorf("netsim: listen %q: %w", addr, err)
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if ap.Port() == 0 {
		for range 1 << 16 {
			cand := netip.AddrPortFrom(ap.Addr(), n.nextPort)
			n.nextPort = max(n.nextPort+1, 1)
			if n.conns[cand] == nil {
				ap = cand
				break
			}
		}
	}
	if ap.Port() == 0 || n.conns[ap] != nil {
		return nil, fmt.Errorf("netsim: listen %v: %w", ap, ErrAddrInUse)
	}
	c := &MemConn{
		network:   n,
		addr:      ap,
		queue:     make(chan datagram, MemQueue),
		done:      make(chan struct{}),
		deadlines: newDeadlines(),
	}
	n.conns[ap] = c
	return c, nil
}

func (n *MemNetwork) lookup(ap netip.AddrPort) *MemConn {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.conns[ap]
}

func (n *MemNetwork) remove(c *MemConn) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conns[c.addr] == c {
		delete(n.conns, c.addr)
	}
}

// MemConn is an endpoint of a MemNetwork. It implements net.PacketConn;
// its addresses are *net.UDPAddr values.
type MemConn struct {
	network *MemNetwork
	addr    netip.AddrPort
	queue   chan datagram

	deadlines

	closeOnce sync.Once
	done      chan struct{}
}

// ReadFrom returns the next packet sent to this endpoint. A packet longer
// than b is truncated.
func (c *MemConn) ReadFrom(b []byte) (int, net.Addr, error) {
	if isClosed(c.done) {
		return 0, nil, c.opError("read", nil, net.ErrClosed)
	}
	if c.readDeadline.passed() {
		return 0, nil, c.opError("read", nil, os.ErrDeadlineExceeded)
	}
	select {
	case d := <-c.queue:
		return copy(b, d.data), d.addr, nil
	case <-c.done:
		return 0, nil, c.opError("read", nil, net.ErrClosed)
	case <-c.readDeadline.wait():
		return 0, nil, c.opError("read", nil, os.ErrDeadlineExceeded)
	}
}

// WriteTo sends a copy of b to addr, which must be a *net.UDPAddr or a
// net.Addr whose String is "ip:port". It never blocks.
func (c *MemConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	switch {
	case isClosed(c.done):
		return 0, c.opError("write", addr, net.ErrClosed)
	case c.writeDeadline.passed():
		return 0, c.opError("write", addr, os.ErrDeadlineExceeded)
	}
	ap, err := addrPort(addr)
	if err != nil {
		return 0, c.opError("write", addr, err)
	}
	if dst := c.network.lookup(ap); dst != nil {
		d := datagram{data: append([]byte(nil), b...), addr: net.UDPAddrFromAddrPort(c.addr)}
		select {
		case dst.queue <- d:
		default: // receiver's queue full: dropped
		}
	}
	return len(b), nil
}

func addrPort(addr net.Addr) (netip.AddrPort, error) {
	if u, ok := addr.(*net.UDPAddr); ok {
		ap := u.AddrPort()
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
	}
	if addr == nil {
		return netip.AddrPort{}, errors.New("missing address")
	}
	return netip.ParseAddrPort(addr.String())
}

// Close removes the endpoint from its network and unblocks ReadFrom.
func (c *MemConn) Close() error {
	err := c.opError("close", nil, net.ErrClosed)
	c.closeOnce.Do(func() {
		c.network.remove(c)
		close(c.done)
		err = nil
	})
	return err
}

// LocalAddr returns the endpoint's address, a *net.UDPAddr.
func (c *MemConn) LocalAddr() net.Addr { return net.UDPAddrFromAddrPort(c.addr) }

func (c *MemConn) opError(op string, addr net.Addr, err error) error {
	return &net.OpError{Op: op, Net: "mem", Source: c.LocalAddr(), Addr: addr, Err: err}
}
