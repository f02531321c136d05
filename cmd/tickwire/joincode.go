package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/tickwire/tickwire/rendezvous"
	"github.com/tickwire/tickwire/tracker"
	"github.com/tickwire/tickwire/transport"
)

// resolveJoinCode asks --tracker what --join-code names and takes the
// server's address, the room and the server's key (to pin) from it. A
// single-use code is used up by this.
func (f *botCommon) resolveJoinCode() error {
	if f.joinCode == "" {
		if f.trackerURL != "" {
			return fmt.Errorf("%w: --tracker goes with --join-code", errUsage)
		}
		return nil
	}
	switch {
	case f.trackerURL == "":
		return fmt.Errorf("%w: --join-code needs --tracker", errUsage)
	case f.server != "" || f.room != "":
		return fmt.Errorf("%w: --join-code names the server and room: leave out --server and --room", errUsage)
	}
	code, err := tracker.ParseCode(f.joinCode)
	if err != nil {
		return fmt.Errorf("%w: --join-code %q: %v", errUsage, f.joinCode, err)
	}
	c, err := tracker.NewClient(f.trackerURL)
	if err != nil {
		return fmt.Errorf("%w: --tracker: %v", errUsage, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e, err := c.ResolveCode(ctx, code)
	if err != nil {
		return &connectError{addr: f.trackerURL, err: fmt.Errorf("join code %s: %w", code, err), tracker: true}
	}
	f.server, f.room = e.Host, e.Room
	if e.ServerKey != "" && f.sec.serverKey == "" {
		f.sec.serverKey = e.ServerKey
	}
	return nil
}

// joinedRoute is where "bot --join" found its host: the socket the
// rendezvous saw and the route from it.
type joinedRoute struct {
	conn  *rendezvous.Conn
	route rendezvous.Route
	used  bool
	start time.Time     // when the code was entered
	found time.Duration // from then to the route
}

// dial connects over the joined socket; it has one route, so one bot.
func (j *joinedRoute) dial(tcfg transport.Config) dialer {
	return func(ctx context.Context, _ int) (*transport.Conn, error) {
		if j.used {
			return nil, fmt.Errorf("--join: the route carries one connection")
		}
		j.used = true
		return transport.Dial(ctx, j.conn, j.route.Addr, tcfg)
	}
}

// defaultJoinTimeout bounds a --join's resolution and route.
const defaultJoinTimeout = 30 * time.Second

// resolveJoinURI resolves --join at its rendezvous: signals, punches (or
// falls back to the relay route) from a socket of its own, and takes the
// room and the host's key from the answer.
func (f *botCommon) resolveJoinURI() error {
	if f.joinURI == "" {
		return nil
	}
	switch {
	case f.server != "" || f.room != "" || f.joinCode != "":
		return fmt.Errorf("%w: --join names the host and room: leave out --server, --room and --join-code", errUsage)
	case f.players != 1:
		return fmt.Errorf("%w: --join takes --players 1 (one route, one bot)", errUsage)
	}
	code, addr, err := rendezvous.ParseJoinURI(f.joinURI)
	if err != nil {
		return fmt.Errorf("%w: --join: %v", errUsage, err)
	}
	rv, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return fmt.Errorf("%w: --join: %v", errUsage, err)
	}
	start := time.Now()
	udp, err := net.ListenPacket("udp", ":0")
	if err != nil {
		return err
	}
	conn := rendezvous.NewConn(udp)
	timeout := cmp0(f.joinTimeout, defaultJoinTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	route, err := rendezvous.Connect(ctx, conn, rendezvous.Rendezvous{Server: rv.AddrPort(), Code: code}, rendezvous.PunchConfig{})
	if err != nil {
		conn.Close()
		if errors.Is(err, context.DeadlineExceeded) {
			// The rendezvous answers a joiner only once the host admitted
			// it; an unknown or used code is refused at once.
			return fmt.Errorf("join %s: the host never admitted this joiner within %v (it may have gone, or its match started), or the rendezvous %s is out of reach: %w",
				code, timeout, addr, err)
		}
		return fmt.Errorf("join %s: %w", code, err)
	}
	f.server, f.room = route.Addr.String(), route.Room
	if f.roomSize == 0 {
		f.roomSize = route.RoomSize
	}
	if len(route.ServerKey) > 0 && f.sec.serverKey == "" {
		f.sec.serverKey = hex.EncodeToString(route.ServerKey)
	}
	f.joined = &joinedRoute{conn: conn, route: route, start: start, found: time.Since(start)}
	return nil
}
