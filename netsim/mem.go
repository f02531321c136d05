package netsim

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"
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
	nats     map[netip.Addr]*NAT // by public address
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

func (n *MemNetwork) natAt(a netip.Addr) *NAT {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.nats[a]
}

// send carries b from c to dst through the NATs on its way: c's own (the
// mapping, the TTL, the delay) and one at dst's address (the filtering,
// the delay), deciding the filtering when the packet arrives.
func (n *MemNetwork) send(c *MemConn, dst netip.AddrPort, b []byte) {
	src := c.addr
	var delay time.Duration
	target := n.lookup(dst)
	sameLAN := c.nat != nil && target != nil && target.nat == c.nat
	if !sameLAN && target != nil && target.nat != nil {
		return // a private address behind a NAT: not routable from here
	}
	if c.nat != nil && !sameLAN { // leaving through the NAT
		src = c.nat.outbound(time.Now(), c.addr, dst)
		if ttl := c.ttl.Load(); ttl > 0 && ttl <= lowTTL {
			return
		}
		delay += c.nat.cfg.Delay
	}
	far := n.natAt(dst.Addr())
	if far != nil {
		delay += far.cfg.Delay
	}
	d := datagram{data: append([]byte(nil), b...), addr: net.UDPAddrFromAddrPort(src)}
	arrive := func() {
		to := dst
		if far != nil {
			var ok bool
			if to, ok = far.inbound(time.Now(), src, dst.Port()); !ok {
				return
			}
		}
		if r := n.lookup(to); r != nil {
			select {
			case r.queue <- d:
			default: // receiver's queue full: dropped
			}
		}
	}
	if delay > 0 {
		time.AfterFunc(delay, arrive)
		return
	}
	arrive()
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
	nat     *NAT         // the NAT this endpoint is behind, or nil
	ttl     atomic.Int32 // SetTTL's; 0: the default

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
	c.network.send(c, ap, b)
	return len(b), nil
}

// SetTTL sets the IP time-to-live of the packets c sends from now on (0:
// the default). It matters only behind a NAT: see NAT.
func (c *MemConn) SetTTL(ttl int) error {
	c.ttl.Store(int32(ttl))
	return nil
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
