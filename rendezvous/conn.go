package rendezvous

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// connQueue is how many datagrams of each kind a Conn holds unread; more
// are dropped, as by a full socket buffer.
const connQueue = 1024

// Conn is one UDP socket shared by the rendezvous protocol and the
// transport: the host registers, keeps its binding and punches from the
// socket its transport.Listener serves, so the public endpoint the
// rendezvous observes is the game's. Give Conn to transport.Listen or
// transport.Dial: datagrams starting with Magic are taken out for the
// rendezvous side (Control) and the rest read as usual.
type Conn struct {
	pc      net.PacketConn
	data    chan datagram
	control chan datagram
	done    chan struct{}
	once    sync.Once
	writeMu sync.Mutex // a TTL-limited write holds it so no other write takes that TTL

	deadlineMu sync.Mutex
	deadline   time.Time
}

type datagram struct {
	b    []byte
	from netip.AddrPort
}

// NewConn starts reading pc, which Conn owns from now on.
func NewConn(pc net.PacketConn) *Conn {
	c := &Conn{pc: pc, data: make(chan datagram, connQueue), control: make(chan datagram, connQueue), done: make(chan struct{})}
	go c.read()
	return c
}

func (c *Conn) read() {
	defer c.Close()
	buf := make([]byte, 1<<16)
	for {
		n, from, err := c.pc.ReadFrom(buf)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return
		}
		src, err := addrPortOf(from)
		if err != nil {
			continue
		}
		q := c.data
		if IsMessage(buf[:n]) {
			q = c.control
		}
		select {
		case q <- datagram{b: append([]byte(nil), buf[:n]...), from: src}:
		default:
		}
	}
}

// control returns the next rendezvous datagram.
func (c *Conn) readControl(ctx context.Context) (datagram, error) {
	select {
	case d := <-c.control:
		return d, nil
	case <-c.done:
		return datagram{}, net.ErrClosed
	case <-ctx.Done():
		return datagram{}, ctx.Err()
	}
}

// ReadFrom returns the next datagram that is not the rendezvous's.
func (c *Conn) ReadFrom(b []byte) (int, net.Addr, error) {
	c.deadlineMu.Lock()
	dl := c.deadline
	c.deadlineMu.Unlock()
	var expired <-chan time.Time
	if !dl.IsZero() {
		t := time.NewTimer(time.Until(dl))
		defer t.Stop()
		expired = t.C
	}
	select {
	case d := <-c.data:
		return copy(b, d.b), net.UDPAddrFromAddrPort(d.from), nil
	case <-c.done:
		return 0, nil, &net.OpError{Op: "read", Net: "udp", Err: net.ErrClosed}
	case <-expired:
		return 0, nil, &net.OpError{Op: "read", Net: "udp", Err: os.ErrDeadlineExceeded}
	}
}

// WriteTo sends b to addr.
func (c *Conn) WriteTo(b []byte, addr net.Addr) (int, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.pc.WriteTo(b, addr)
}

// send sends d, with its TTL if it has one.
func (c *Conn) send(d Datagram) error {
	if d.TTL == 0 {
		_, err := c.WriteTo(d.Data, net.UDPAddrFromAddrPort(d.To))
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if err := c.setTTL(d.TTL); err != nil {
		return err
	}
	_, err := c.pc.WriteTo(d.Data, net.UDPAddrFromAddrPort(d.To))
	return errors.Join(err, c.setTTL(0))
}

// ttlSetter is a PacketConn that sets its TTL itself (netsim's).
type ttlSetter interface{ SetTTL(int) error }

// defaultTTL restores a UDP socket's TTL after a limited one.
const defaultTTL = 64

// setTTL sets the TTL of what the socket sends next; 0 restores the
// default.
func (c *Conn) setTTL(ttl int) error {
	switch pc := c.pc.(type) {
	case ttlSetter:
		return pc.SetTTL(ttl)
	case *net.UDPConn:
		if ttl == 0 {
			ttl = defaultTTL
		}
		if a, ok := pc.LocalAddr().(*net.UDPAddr); ok && a.IP.To4() == nil && !a.IP.IsUnspecified() {
			return ipv6.NewPacketConn(pc).SetHopLimit(ttl)
		}
		return ipv4.NewPacketConn(pc).SetTTL(ttl)
	}
	return nil // a PacketConn with no TTL: the first probe goes out whole
}

// Close closes the socket.
func (c *Conn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.done)
		err = c.pc.Close()
	})
	return err
}

// LocalAddr is the socket's address.
func (c *Conn) LocalAddr() net.Addr { return c.pc.LocalAddr() }

// SetDeadline sets the read deadline (writes do not block).
func (c *Conn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

// SetReadDeadline bounds ReadFrom.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.deadlineMu.Lock()
	defer c.deadlineMu.Unlock()
	c.deadline = t
	return nil
}

// SetWriteDeadline does nothing: writes do not block.
func (c *Conn) SetWriteDeadline(time.Time) error { return nil }
