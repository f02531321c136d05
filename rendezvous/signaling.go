package rendezvous

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"
)

// Path says how a joiner reached its host.
type Path string

// The paths a connection can take.
const (
	// PathDirect: the host's address was reachable as it was (a direct
	// address, or the host's local candidate on the same network).
	PathDirect Path = "direct"
	// PathPunched: a UDP hole punch through both NATs.
	PathPunched Path = "punched"
	// PathRelayed: through the relay route the rendezvous named.
	PathRelayed Path = "relayed"
)

// Answer is what a joiner needs before its transport starts: the seed's
// Answer (transport info and identity key) with the host's candidates.
type Answer struct {
	Room string
	// RoomSize is the players of the host's room, the host included; 0
	// if unknown.
	RoomSize int
	// ServerKey is the host's Ed25519 public key, pinned by the
	// transport's handshake; nil for a plaintext host.
	ServerKey []byte
	// Host is the host's public endpoint as the rendezvous observed it,
	// or its address for direct signaling.
	Host netip.AddrPort
	// Candidates are the host's local endpoints (same-network play).
	Candidates []netip.AddrPort
	// Session and Token key the hole punch; a zero Session means no
	// punching: Host is reachable as it is.
	Session uint64
	Token   Token
	// Relay is the fallback route; the zero value means none.
	Relay netip.AddrPort
}

// ErrRejected is a signaling refused by the other end or the rendezvous
// (the seed's Reject); the error is a *RejectError.
var ErrRejected = errors.New("rendezvous: rejected")

// RejectError is a refusal with its reason.
type RejectError struct {
	Reason uint8
}

func (e *RejectError) Error() string {
	text := reasonText[e.Reason]
	if text == "" {
		text = fmt.Sprintf("reason %d", e.Reason)
	}
	return "rendezvous: rejected: " + text
}

// Is makes errors.Is(err, ErrRejected) true.
func (e *RejectError) Is(target error) bool { return target == ErrRejected }

// Signaling is how a joiner learns what it needs before its transport
// starts (the seed's Signaling trait, joiner's side): the host's answer,
// or a refusal. The rendezvous signaling sends from conn, so that what the
// rendezvous observes is the game socket's public endpoint.
type Signaling interface {
	Signal(ctx context.Context, conn *Conn) (Answer, error)
}

// Direct is signaling with no server: the host's address is known.
type Direct struct {
	Addr      netip.AddrPort
	Room      string
	ServerKey []byte
}

// Signal answers with the address as it is.
func (d Direct) Signal(context.Context, *Conn) (Answer, error) {
	return Answer{Room: d.Room, ServerKey: d.ServerKey, Host: d.Addr}, nil
}

// Memory is in-process signaling for tests: a host offers an answer under
// a code, a joiner takes it (once).
type Memory struct {
	mu      sync.Mutex
	answers map[string]Answer
}

// Offer publishes a under code.
func (m *Memory) Offer(code string, a Answer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.answers == nil {
		m.answers = make(map[string]Answer)
	}
	m.answers[code] = a
}

// Joiner is the signaling of a joiner holding code.
func (m *Memory) Joiner(code string) Signaling { return memoryJoiner{m, code} }

type memoryJoiner struct {
	m    *Memory
	code string
}

func (j memoryJoiner) Signal(context.Context, *Conn) (Answer, error) {
	j.m.mu.Lock()
	defer j.m.mu.Unlock()
	a, ok := j.m.answers[j.code]
	if !ok {
		return Answer{}, &RejectError{Reason: ReasonUnknownCode}
	}
	delete(j.m.answers, j.code)
	return a, nil
}

// DefaultRetry is how often a request to the rendezvous is repeated until
// answered.
const DefaultRetry = 500 * time.Millisecond

// Rendezvous is signaling through a rendezvous server with a join code.
type Rendezvous struct {
	Server netip.AddrPort
	Code   string
	// Retry repeats the resolve until answered; 0 means DefaultRetry.
	Retry time.Duration
}

// Signal resolves the code: the rendezvous forwards it to the host, which
// opens its NAT toward this socket and says so, and then answers.
func (r Rendezvous) Signal(ctx context.Context, conn *Conn) (Answer, error) {
	req := (&resolve{Code: r.Code}).append(nil)
	m, err := request(ctx, conn, r.Server, req, r.Retry, func(m message) bool {
		switch m := m.(type) {
		case *answer:
			return true
		case *reject:
			return m.Code == r.Code
		}
		return false
	})
	if err != nil {
		return Answer{}, err
	}
	if rj, ok := m.(*reject); ok {
		return Answer{}, &RejectError{Reason: rj.Reason}
	}
	a := m.(*answer)
	return Answer{Room: a.Room, RoomSize: int(a.RoomSize), ServerKey: a.ServerKey, Host: a.Host, Candidates: a.Candidates,
		Session: a.Session, Token: a.Token, Relay: a.Relay}, nil
}

// request sends req to server every retry until a message from server
// that want accepts comes back.
func request(ctx context.Context, conn *Conn, server netip.AddrPort, req []byte, retry time.Duration, want func(message) bool) (message, error) {
	server = unmap(server)
	if retry <= 0 {
		retry = DefaultRetry
	}
	for {
		if _, err := conn.WriteTo(req, net.UDPAddrFromAddrPort(server)); err != nil {
			return nil, err
		}
		rctx, cancel := context.WithTimeout(ctx, retry)
		m, err := readFrom(rctx, conn, server, want)
		cancel()
		switch {
		case err == nil:
			return m, nil
		case ctx.Err() != nil:
			return nil, fmt.Errorf("rendezvous %v: %w", server, ctx.Err())
		case !errors.Is(err, context.DeadlineExceeded):
			return nil, err
		}
	}
}

// readFrom returns the next message from server that want accepts.
func readFrom(ctx context.Context, conn *Conn, server netip.AddrPort, want func(message) bool) (message, error) {
	for {
		d, err := conn.readControl(ctx)
		if err != nil {
			return nil, err
		}
		if d.from != server {
			continue
		}
		if m, err := decode(d.b); err == nil && want(m) {
			return m, nil
		}
	}
}

// unmap writes an IPv4-mapped address as plain IPv4, as Conn reports
// sources.
func unmap(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }
