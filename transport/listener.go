package transport

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	"github.com/tickwire/tickwire/secure"
)

// Listener accepts connections on one or more PacketConns (a UDP socket,
// and with ServeTCP and WebSocketHandler the stream fallbacks), which share
// its configuration, its connection limits and its Accept queue.
type Listener struct {
	set       *settings
	sec       *secure.Server // nil: plaintext
	accept    chan *Conn
	closed    chan struct{}
	closeOnce sync.Once

	mu          sync.Mutex
	eps         []*endpoint
	done        bool
	backlogFull atomic.Uint64
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
	l, err := newListener(set)
	if err != nil {
		return nil, err
	}
	if err := l.Serve(pc); err != nil {
		return nil, err
	}
	return l, nil
}

// newListener returns a Listener with no PacketConn yet.
func newListener(set *settings) (*Listener, error) {
	sec, err := newSecureServer(set)
	if err != nil {
		return nil, err
	}
	return &Listener{set: set, sec: sec, accept: make(chan *Conn, set.backlog), closed: make(chan struct{})}, nil
}

// Serve accepts connections on another PacketConn as well, which the
// Listener owns from now on.
func (l *Listener) Serve(pc net.PacketConn) error {
	_, err := l.serve(pc)
	return err
}

func (l *Listener) serve(pc net.PacketConn) (*endpoint, error) {
	ep, err := newEndpoint(pc, l.set)
	if err != nil {
		return nil, err
	}
	ep.listener = l
	go ep.readLoop()
	l.mu.Lock()
	if l.done {
		l.mu.Unlock()
		ep.shutdown()
		return nil, ErrClosed
	}
	l.eps = append(l.eps, ep)
	l.mu.Unlock()
	return ep, nil
}

// offer queues a connection that completed its handshake for Accept; with a
// full backlog the connection is closed.
func (l *Listener) offer(c *Conn) {
	select {
	case l.accept <- c:
	default:
		l.backlogFull.Add(1)
		c.ep.set.logger.Warn("transport: accept backlog full, closing connection", "peer", c.addr)
		go c.CloseWithReason("server busy")
	}
}

// ListenerStats are a Listener's counters: connections, and every refusal.
type ListenerStats struct {
	// Connections is the number of open connections (handshaking ones
	// included); Pending the encrypted handshakes past the cookie that
	// carried no datagram yet.
	Connections, Pending int
	// RefusedFull counts plaintext hellos ignored because MaxConnections
	// was reached; BacklogFull connections closed because the Accept queue
	// was full.
	RefusedFull, BacklogFull uint64
	// StreamsRefused counts TCP and WebSocket streams closed on arrival:
	// over MaxConnections streams, or twice the per-IP limit from one IP.
	StreamsRefused uint64
	// OverBudget counts connections ended for exceeding MemoryBudget.
	OverBudget uint64
	// Handshake are the secure handshake counters (encrypted listeners):
	// bytes before address validation, cookies, refusals by reason
	// (Handshake.Refused, indexed by secure.RefusalReason) and admission.
	Handshake secure.ServerStats
	// Security are the datagram counters of encrypted connections.
	Security SecurityStats
}

// Stats returns the listener's counters.
func (l *Listener) Stats() ListenerStats {
	var st ListenerStats
	l.mu.Lock()
	eps := append([]*endpoint(nil), l.eps...)
	l.mu.Unlock()
	for _, ep := range eps {
		ep.mu.Lock()
		st.Connections += len(ep.conns)
		st.Pending += len(ep.pending)
		ep.mu.Unlock()
		st.RefusedFull += ep.refused.Load()
		st.OverBudget += ep.overBudget.Load()
		if ss, ok := ep.pc.(*streamServer); ok {
			st.StreamsRefused += ss.refused.Load()
		}
		ep.sec.add(&st.Security)
	}
	st.BacklogFull = l.backlogFull.Load()
	if l.sec != nil {
		st.Handshake = l.sec.Stats()
	}
	return st
}

// PublicKey returns the server identity clients pin, or nil for a
// plaintext listener.
func (l *Listener) PublicKey() ed25519.PublicKey {
	if l.sec == nil {
		return nil
	}
	return l.sec.PublicKey()
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

// Addr returns the local address of the first PacketConn.
func (l *Listener) Addr() net.Addr { return l.eps[0].pc.LocalAddr() }

// Close closes every connection gracefully, then the sockets.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		close(l.closed)
		l.mu.Lock()
		l.done = true
		eps := l.eps
		l.mu.Unlock()
		var wg sync.WaitGroup
		for _, ep := range eps {
			wg.Go(ep.shutdown)
		}
		wg.Wait()
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
	key := keyOf(raddr, id)
	var sec *connSecurity
	go ep.readLoop()
	if set.security != nil {
		key = keyOf(raddr, 0) // handshake packets carry no connection id
		if sec, err = ep.clientHandshake(ctx, raddr); err != nil {
			ep.shutdown()
			return nil, fmt.Errorf("transport: dial %v: %w", raddr, err)
		}
	}
	ep.mu.Lock()
	c := ep.newConn(raddr, key, SessionParams{Client: true, ConnID: id, InitialSeq: random32()})
	c.sec = sec
	ep.mu.Unlock()
	c.ownsEP = true
	c.start()
	select {
	case <-c.established:
	case <-ctx.Done():
		c.abandon(ErrClosed)
		return nil, ctx.Err()
	case err := <-ep.unreachable:
		c.abandon(err)
		return nil, fmt.Errorf("transport: dial %v: %w", raddr, err)
	}
	if st := c.State(); st != StateConnected {
		<-c.done
		ep.shutdown()
		c.mu.Lock()
		err := c.sess.Err()
		c.mu.Unlock()
		if errors.Is(err, ErrTimeout) {
			return nil, fmt.Errorf("transport: dial %v: %w: no answer to a plaintext handshake; a server that wants encryption "+
				"(tickwire serve does, unless --insecure) answers only a client dialing with Config.Security "+
				"(SecurityConfig{ServerKey: its public key, which serve --json prints})", raddr, err)
		}
		return nil, fmt.Errorf("transport: dial %v: %w", raddr, err)
	}
	return c, nil
}

// abandon ends a dialed connection that never connected, with err, and
// closes its socket.
func (c *Conn) abandon(err error) {
	c.mu.Lock()
	c.sess.end(err)
	c.mu.Unlock()
	c.poke()
	<-c.done
	c.ep.shutdown()
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
// ephemeral local port. The socket is connected to the server, so the
// network's ICMP errors about it reach the connection: a port nothing
// listens on fails the dial at once with ErrUnreachable instead of
// waiting out the handshake timeout.
func DialUDP(ctx context.Context, addr string, cfg Config) (*Conn, error) {
	var r net.Resolver
	raddr, err := resolveUDP(ctx, &r, addr)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	uc, err := d.DialContext(ctx, "udp", raddr.String())
	if err != nil {
		return nil, err
	}
	return Dial(ctx, connectedUDP{uc.(*net.UDPConn), raddr}, raddr, cfg)
}

// connectedUDP is a UDP socket connected to the one peer a dialed
// connection talks to, as a PacketConn: the kernel reports ICMP errors
// about that peer on it (as the error of the next read), which it does
// not on an unconnected socket. Datagrams read come from peer, the
// address Dial was given (so they match its connection's key).
type connectedUDP struct {
	*net.UDPConn
	peer net.Addr
}

func (c connectedUDP) WriteTo(b []byte, _ net.Addr) (int, error) { return c.Write(b) }

func (c connectedUDP) ReadFrom(b []byte) (int, net.Addr, error) {
	n, err := c.Read(b)
	return n, c.peer, err
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
