package transport

import (
	"context"
	"fmt"
	"net"
	"sync"
)

// Listener accepts connections on a PacketConn.
type Listener struct {
	ep        *endpoint
	accept    chan *Conn
	closed    chan struct{}
	closeOnce sync.Once
}

// Listen accepts connections on pc, which the Listener owns from now on:
// Close closes it. ctx bounds only the setup.
func Listen(ctx context.Context, pc net.PacketConn, cfg Config) (*Listener, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	set, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	ep, err := newEndpoint(pc, set)
	if err != nil {
		return nil, err
	}
	l := &Listener{ep: ep, accept: make(chan *Conn, set.backlog), closed: make(chan struct{})}
	ep.listener = l
	go ep.readLoop()
	return l, nil
}

// offer queues a connection that completed its handshake for Accept; with a
// full backlog the connection is closed.
func (l *Listener) offer(c *Conn) {
	select {
	case l.accept <- c:
	default:
		c.ep.set.logger.Warn("transport: accept backlog full, closing connection", "peer", c.addr)
		go c.CloseWithReason("server busy")
	}
}

// Accept waits for the next connection whose handshake completed.
func (l *Listener) Accept(ctx context.Context) (*Conn, error) {
	select {
	case c := <-l.accept:
		return c, nil
	case <-l.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Addr returns the local address.
func (l *Listener) Addr() net.Addr { return l.ep.pc.LocalAddr() }

// Close closes every connection gracefully, then the socket.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		close(l.closed)
		l.ep.shutdown()
	})
	return nil
}

// Dial connects to raddr over pc, which the connection owns from now on:
// closing the connection closes it. It returns once the handshake completed,
// failed (ErrHandshake, ErrTimeout) or ctx ended.
func Dial(ctx context.Context, pc net.PacketConn, raddr net.Addr, cfg Config) (*Conn, error) {
	set, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	ep, err := newEndpoint(pc, set)
	if err != nil {
		return nil, err
	}
	id := random32()
	ep.mu.Lock()
	c := ep.newConn(raddr, keyOf(raddr, id), SessionParams{Client: true, ConnID: id, InitialSeq: random32()})
	ep.mu.Unlock()
	c.ownsEP = true
	go ep.readLoop()
	go c.run()
	select {
	case <-c.established:
	case <-ctx.Done():
		c.mu.Lock()
		c.sess.end(ErrClosed)
		c.mu.Unlock()
		signal(c.wake)
		<-c.done
		ep.shutdown()
		return nil, ctx.Err()
	}
	if st := c.State(); st != StateConnected {
		<-c.done
		ep.shutdown()
		c.mu.Lock()
		err := c.sess.Err()
		c.mu.Unlock()
		return nil, fmt.Errorf("transport: dial %v: %w", raddr, err)
	}
	return c, nil
}

// ListenUDP listens on a UDP address such as ":7777".
func ListenUDP(ctx context.Context, addr string, cfg Config) (*Listener, error) {
	var lc net.ListenConfig
	pc, err := lc.ListenPacket(ctx, "udp", addr)
	if err != nil {
		return nil, err
	}
	l, err := Listen(ctx, pc, cfg)
	if err != nil {
		pc.Close()
	}
	return l, err
}

// DialUDP connects to a UDP address such as "example.net:7777" from an
// ephemeral local port.
func DialUDP(ctx context.Context, addr string, cfg Config) (*Conn, error) {
	var r net.Resolver
	raddr, err := resolveUDP(ctx, &r, addr)
	if err != nil {
		return nil, err
	}
	local := ":0"
	if raddr.IP.To4() != nil {
		local = "0.0.0.0:0"
	}
	var lc net.ListenConfig
	pc, err := lc.ListenPacket(ctx, "udp", local)
	if err != nil {
		return nil, err
	}
	return Dial(ctx, pc, raddr, cfg)
}

func resolveUDP(ctx context.Context, r *net.Resolver, addr string) (*net.UDPAddr, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	pn, err := r.LookupPort(ctx, "udp", port)
	if err != nil {
		return nil, err
	}
	ips, err := r.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("transport: no address for %q", host)
	}
	return &net.UDPAddr{IP: ips[0].IP, Port: pn, Zone: ips[0].Zone}, nil
}
