package rendezvous

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"
)

// relaySession is the pure core of one session's relay route: each end
// binds with a probe of kind Bind carrying the session's MAC, and from
// then on every other datagram from one bound end goes to the other. A
// bind from a new address moves that end (its NAT rebound).
type relaySession struct {
	session      uint64
	token        Token
	host, joiner netip.AddrPort
	nonce        uint64
	seen         [3]uint64 // the latest bind nonce of each role: a replayed bind moves nothing
}

// handle appends what to send for a datagram from from. A bind is
// acknowledged, to both ends once both are bound.
func (r *relaySession) handle(from netip.AddrPort, b []byte, out []Datagram) []Datagram {
	if IsMessage(b) {
		m, err := decode(b)
		p, ok := m.(*probe)
		if err != nil || !ok || p.Kind != kindBind || p.Session != r.session || p.Role > roleJoiner ||
			p.Nonce <= r.seen[p.Role] || !p.verify(r.token) {
			return out
		}
		r.seen[p.Role] = p.Nonce
		switch p.Role {
		case roleHost:
			r.host = from
		case roleJoiner:
			r.joiner = from
		default: // roleRelay: its own acknowledgement reflected
			return out
		}
		both := r.host.IsValid() && r.joiner.IsValid()
		out = append(out, r.ack(from, both))
		if both {
			other := r.joiner
			if p.Role == roleJoiner {
				other = r.host
			}
			out = append(out, r.ack(other, true))
		}
		return out
	}
	switch {
	case !r.host.IsValid() || !r.joiner.IsValid():
		return out
	case from == r.host:
		return append(out, Datagram{To: r.joiner, Data: b})
	case from == r.joiner:
		return append(out, Datagram{To: r.host, Data: b})
	}
	return out
}

func (r *relaySession) ack(to netip.AddrPort, both bool) Datagram {
	r.nonce++
	m := probe{Kind: kindBind, Session: r.session, Role: roleRelay, Ack: both, Nonce: r.nonce}
	m.sign(r.token)
	return Datagram{To: to, Data: m.append(nil)}
}

// Defaults of RelayPool.
const (
	DefaultMaxRelays   = 1000
	DefaultRelayIdle   = 60 * time.Second
	relayReadDeadline  = time.Second
	maxRelayedDatagram = 1 << 16
)

// ErrRelaysFull is Allocate with every relay route taken.
var ErrRelaysFull = errors.New("rendezvous: relay routes full")

// RelayPool allocates relay routes: one socket per session, served by one
// goroutine, closed after Idle without traffic. It implements
// RelayAllocator.
type RelayPool struct {
	// Listen opens a session's socket (required).
	Listen func() (net.PacketConn, error)
	// Public is the address to advertise with each socket's port; the
	// zero value advertises the socket's own address.
	Public netip.Addr
	// Max bounds the routes open at once; 0 means DefaultMaxRelays.
	Max int
	// Idle closes a route with no traffic for that long; 0 means
	// DefaultRelayIdle.
	Idle time.Duration
	// Ctx ends every route when done; nil means never.
	Ctx context.Context

	mu   sync.Mutex
	open int
}

// Open is the number of relay routes open.
func (p *RelayPool) Open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open
}

// Allocate opens a relay route for a session.
func (p *RelayPool) Allocate(session uint64, token Token) (netip.AddrPort, error) {
	limit := p.Max
	if limit <= 0 {
		limit = DefaultMaxRelays
	}
	p.mu.Lock()
	if p.open >= limit {
		p.mu.Unlock()
		return netip.AddrPort{}, ErrRelaysFull
	}
	p.open++
	p.mu.Unlock()
	pc, err := p.Listen()
	if err != nil {
		p.done()
		return netip.AddrPort{}, err
	}
	addr, err := addrPortOf(pc.LocalAddr())
	if err != nil {
		pc.Close()
		p.done()
		return netip.AddrPort{}, err
	}
	if p.Public.IsValid() {
		addr = netip.AddrPortFrom(p.Public, addr.Port())
	}
	go p.serve(pc, &relaySession{session: session, token: token})
	return addr, nil
}

func (p *RelayPool) done() {
	p.mu.Lock()
	p.open--
	p.mu.Unlock()
}

func (p *RelayPool) serve(pc net.PacketConn, r *relaySession) {
	defer p.done()
	defer pc.Close()
	idle := p.Idle
	if idle <= 0 {
		idle = DefaultRelayIdle
	}
	ctx := p.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	stop := context.AfterFunc(ctx, func() { pc.Close() })
	defer stop()
	buf := make([]byte, maxRelayedDatagram)
	var out []Datagram
	last := time.Now()
	for ctx.Err() == nil && time.Since(last) < idle {
		pc.SetReadDeadline(time.Now().Add(min(idle, relayReadDeadline)))
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		src, err := addrPortOf(from)
		if err != nil {
			continue
		}
		out = r.handle(src, buf[:n], out[:0])
		if len(out) > 0 {
			last = time.Now()
		}
		for _, d := range out {
			pc.WriteTo(d.Data, net.UDPAddrFromAddrPort(d.To))
		}
	}
}

// addrPortOf is a net.Addr as an AddrPort, IPv4 unmapped.
func addrPortOf(a net.Addr) (netip.AddrPort, error) {
	if u, ok := a.(*net.UDPAddr); ok {
		ap := u.AddrPort()
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
	}
	if a == nil {
		return netip.AddrPort{}, errors.New("rendezvous: no address")
	}
	ap, err := netip.ParseAddrPort(a.String())
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), err
}
