package rendezvous

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"time"
)

// ErrNoRoute is Connect finding neither a punched path nor a relay.
var ErrNoRoute = errors.New("rendezvous: no route to the host: punching failed and no relay answered")

// Route is where a joiner's transport goes, and how it got there.
type Route struct {
	Addr      *net.UDPAddr
	Path      Path
	Room      string
	RoomSize  int // 0 if unknown
	ServerKey []byte
}

// Connect signals through sig and finds a route to the host from conn:
// the host's address as it is for direct signaling, else a hole punch to
// the host's public endpoint and local candidates for cfg.Timeout, else
// the relay route, bound within another cfg.Timeout. Then dial the
// transport over conn to Route.Addr.
func Connect(ctx context.Context, conn *Conn, sig Signaling, cfg PunchConfig) (Route, error) {
	cfg = cfg.withDefaults()
	a, err := sig.Signal(ctx, conn)
	if err != nil {
		return Route{}, err
	}
	r := Route{Room: a.Room, RoomSize: a.RoomSize, ServerKey: a.ServerKey}
	if a.Session == 0 {
		r.Addr, r.Path = net.UDPAddrFromAddrPort(a.Host), PathDirect
		return r, nil
	}
	targets := append([]netip.AddrPort{unmap(a.Host)}, a.Candidates...)
	p := newPuncher(cfg, kindProbe, roleJoiner, a.Session, a.Token, targets, time.Now())
	if addr, err := drive(ctx, conn, p, cfg.Timeout); err == nil {
		r.Addr, r.Path = net.UDPAddrFromAddrPort(addr), PathPunched
		if slices.Contains(a.Candidates, addr) {
			r.Path = PathDirect
		}
		return r, nil
	} else if ctx.Err() != nil {
		return Route{}, err
	}
	if !a.Relay.IsValid() {
		return Route{}, ErrNoRoute
	}
	b := newPuncher(cfg, kindBind, roleJoiner, a.Session, a.Token, []netip.AddrPort{a.Relay}, time.Now())
	if _, err := drive(ctx, conn, b, cfg.Timeout); err != nil {
		if ctx.Err() != nil {
			return Route{}, err
		}
		return Route{}, fmt.Errorf("%w (relay %v)", ErrNoRoute, a.Relay)
	}
	r.Addr, r.Path = net.UDPAddrFromAddrPort(a.Relay), PathRelayed
	return r, nil
}

// drive runs a puncher on conn until it proves a path or timeout passes.
func drive(ctx context.Context, conn *Conn, p *puncher, timeout time.Duration) (netip.AddrPort, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out []Datagram
	for {
		out = p.tick(time.Now(), out[:0])
		for _, d := range out {
			conn.send(d)
		}
		if addr, ok := p.Done(); ok {
			return addr, nil
		}
		wctx, wcancel := context.WithDeadline(ctx, p.Next())
		d, err := conn.readControl(wctx)
		wcancel()
		switch {
		case ctx.Err() != nil:
			return netip.AddrPort{}, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			continue
		case err != nil:
			return netip.AddrPort{}, err
		}
		if m, err := decode(d.b); err == nil {
			if pr, ok := m.(*probe); ok {
				out = p.handle(d.from, pr, out[:0])
				for _, d := range out {
					conn.send(d)
				}
			}
		}
		out = out[:0]
	}
}
