package rendezvous

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"
)

// DefaultKeepalive is how often a host refreshes its NAT binding and its
// code: well under the 30 s a home router may keep an idle UDP mapping.
const DefaultKeepalive = 10 * time.Second

// HostConfig configures a Host. Rendezvous is required.
type HostConfig struct {
	Rendezvous netip.AddrPort
	// Room and ServerKey are what joiners get (the host's offer).
	Room      string
	RoomSize  int
	ServerKey []byte
	// Uses is how many joiners the code admits; 0 means 1 (single use).
	Uses int
	// Candidates are the host's local endpoints, for joiners on its
	// network.
	Candidates []netip.AddrPort
	// Keepalive is the time between keepalives; 0 means
	// DefaultKeepalive.
	Keepalive time.Duration
	// Retry repeats the registration until answered; 0 means
	// DefaultRetry.
	Retry time.Duration
	Punch PunchConfig
	// Log reports rebinding and punches; nil means slog.Default().
	Log *slog.Logger
}

// Host is a listen server's side of the rendezvous: it registers a code,
// keeps its NAT binding and the code alive, re-registers from wherever
// its NAT moved it, and punches toward each joiner the rendezvous
// announces while binding that joiner's relay route.
type Host struct {
	conn   *Conn
	cfg    HostConfig
	code   string
	secret Secret
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	observed netip.AddrPort
	rebinds  int
	paths    map[netip.AddrPort]Path // a joiner's address as the host sees it → its path
	bound    bool                    // a relay route had both ends bound
}

// hostSession is one joiner being punched to, and its relay being bound.
type hostSession struct {
	punch, bind *puncher
	joiner      netip.AddrPort // as the rendezvous saw it
	until       time.Time
}

// Register registers a code at the rendezvous from conn and keeps it alive
// until Close.
func Register(ctx context.Context, conn *Conn, cfg HostConfig) (*Host, error) {
	if cfg.Keepalive <= 0 {
		cfg.Keepalive = DefaultKeepalive
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	cfg.Punch = cfg.Punch.withDefaults()
	cfg.Rendezvous = unmap(cfg.Rendezvous)
	if len(cfg.Room) > MaxRoom || len(cfg.Candidates) > MaxCandidates || cfg.Uses > MaxUses || cfg.RoomSize > 255 {
		return nil, fmt.Errorf("rendezvous: a room of at most %d bytes and 255 players, %d candidates, %d uses", MaxRoom, MaxCandidates, MaxUses)
	}
	h := &Host{conn: conn, cfg: cfg, done: make(chan struct{}), paths: make(map[netip.AddrPort]Path)}
	m, err := request(ctx, conn, cfg.Rendezvous, h.register().append(nil), cfg.Retry, func(m message) bool {
		_, ok := m.(*registered)
		_, no := m.(*reject)
		return ok || no
	})
	if err != nil {
		return nil, err
	}
	if rj, ok := m.(*reject); ok {
		return nil, &RejectError{Reason: rj.Reason}
	}
	r := m.(*registered)
	h.code, h.secret, h.observed = r.Code, r.Secret, r.Observed
	rctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go h.run(rctx)
	return h, nil
}

func (h *Host) register() *register {
	return &register{Code: h.code, Secret: h.secret, Uses: uint8(h.cfg.Uses), RoomSize: uint8(h.cfg.RoomSize), Room: h.cfg.Room,
		ServerKey: h.cfg.ServerKey, Candidates: h.cfg.Candidates}
}

// Code is the join code.
func (h *Host) Code() string { return h.code }

// Observed is the host's public endpoint as the rendezvous last saw it.
func (h *Host) Observed() netip.AddrPort {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.observed
}

// Rebinds is how many times the host's public endpoint changed.
func (h *Host) Rebinds() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.rebinds
}

// PathOf says how the joiner at addr (a transport connection's remote
// address) reached the host: relayed through a relay route, punched to a
// proven address, else direct.
func (h *Host) PathOf(addr net.Addr) Path {
	ap, err := addrPortOf(addr)
	h.mu.Lock()
	defer h.mu.Unlock()
	if p, ok := h.paths[ap]; ok && err == nil {
		return p
	}
	return PathDirect
}

// Close stops the keepalives and the punching; it does not close conn.
func (h *Host) Close() error {
	h.cancel()
	<-h.done
	return nil
}

// run owns the sessions: it keeps the binding alive, answers the
// rendezvous and punches, until ctx ends.
func (h *Host) run(ctx context.Context) {
	defer close(h.done)
	sessions := make(map[uint64]*hostSession)
	nextKeepalive := time.Now().Add(h.cfg.Keepalive)
	var out []Datagram
	for {
		now := time.Now()
		if !now.Before(nextKeepalive) {
			out = append(out, Datagram{To: h.cfg.Rendezvous, Data: h.register().append(nil)})
			nextKeepalive = now.Add(h.cfg.Keepalive)
		}
		wake := nextKeepalive
		for id, s := range sessions {
			if now.After(s.until) {
				delete(sessions, id)
				continue
			}
			for _, p := range []*puncher{s.punch, s.bind} {
				if p != nil {
					if _, done := p.Done(); !done {
						out = p.tick(now, out)
						wake = earliest(wake, p.Next())
					}
				}
			}
			wake = earliest(wake, s.until)
		}
		for _, d := range out {
			h.conn.send(d)
		}
		out = out[:0]
		wctx, cancel := context.WithDeadline(ctx, wake)
		d, err := h.conn.readControl(wctx)
		cancel()
		if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
			return
		}
		if err == nil {
			out = h.handle(time.Now(), d, sessions, out)
		}
	}
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// handle takes one rendezvous datagram.
func (h *Host) handle(now time.Time, d datagram, sessions map[uint64]*hostSession, out []Datagram) []Datagram {
	m, err := decode(d.b)
	if err != nil {
		return out
	}
	fromRendezvous := d.from == h.cfg.Rendezvous
	switch m := m.(type) {
	case *registered:
		if fromRendezvous && m.Code == h.code {
			h.observe(m.Observed)
		}
	case *reject:
		if fromRendezvous {
			h.cfg.Log.Warn("rendezvous refused the host", "code", h.code, "err", &RejectError{Reason: m.Reason})
		}
	case *peer:
		if fromRendezvous {
			return h.peer(now, m, sessions, out)
		}
	case *probe:
		s := sessions[m.Session]
		if s == nil {
			return out
		}
		p := s.punch
		if m.Kind == kindBind {
			p = s.bind
		}
		if p == nil {
			return out
		}
		out = p.handle(d.from, m, out)
		if addr, ok := p.Done(); ok {
			h.prove(addr, p.kind, s.joiner)
		}
	}
	return out
}

// peer starts punching toward a joiner: the first, TTL-limited round of
// probes goes out before the host tells the rendezvous it is ready, so
// the joiner's first probe finds the host's NAT open.
func (h *Host) peer(now time.Time, m *peer, sessions map[uint64]*hostSession, out []Datagram) []Datagram {
	s := sessions[m.Session]
	if s == nil {
		s = &hostSession{joiner: m.Joiner, until: now.Add(2 * h.cfg.Punch.Timeout)}
		s.punch = newPuncher(h.cfg.Punch, kindProbe, roleHost, m.Session, m.Token, []netip.AddrPort{m.Joiner}, now)
		out = s.punch.tick(now, out)
		if m.Relay.IsValid() {
			s.bind = newPuncher(h.cfg.Punch, kindBind, roleHost, m.Session, m.Token, []netip.AddrPort{m.Relay}, now)
			h.mu.Lock()
			h.paths[m.Relay] = PathRelayed
			h.mu.Unlock()
		}
		sessions[m.Session] = s
		h.cfg.Log.Info("joiner announced: punching", "joiner", m.Joiner, "relay", m.Relay)
	}
	return append(out, Datagram{To: h.cfg.Rendezvous, Data: (&ready{Code: h.code, Secret: h.secret, Session: m.Session}).append(nil)})
}

// prove records a path proven to addr: a relay bound, or a punch — or,
// when the joiner's probe came from a private address and not the one the
// rendezvous saw, a joiner on the host's own network (direct).
func (h *Host) prove(addr netip.AddrPort, kind uint8, joiner netip.AddrPort) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if kind == kindBind {
		h.bound = true
		return
	}
	path := PathPunched
	if addr != joiner && (addr.Addr().IsPrivate() || addr.Addr().IsLoopback()) {
		path = PathDirect
	}
	if _, seen := h.paths[addr]; !seen {
		h.paths[addr] = path
	}
}

// Path is how the host's joiners reached it: relayed if a relay route was
// bound at both ends, else punched if a punch got through, else direct.
func (h *Host) Path() Path {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.bound {
		return PathRelayed
	}
	for _, p := range h.paths {
		if p == PathPunched {
			return p
		}
	}
	return PathDirect
}

func (h *Host) observe(a netip.AddrPort) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if a != h.observed {
		h.cfg.Log.Info("public endpoint changed: re-registered", "was", h.observed, "now", a)
		h.observed = a
		h.rebinds++
	}
}
