package transportbench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/tickwire/tickwire/netsim"
)

// env is a running workload: the client connections and what the server
// side received.
type env struct {
	epoch   time.Time
	clients []Conn
	links   []*netsim.PacketConn // the clients' sockets
	rec     *recorder
	// accepted counts the connections the server accepted.
	accepted func() int

	mu        sync.Mutex
	sent      map[series]int
	firstSent map[series]time.Duration // since the epoch
}

// start listens, dials w.Conns clients through netsim-wrapped loopback
// sockets and waits until the server accepted them all. The server's
// socket is wrapped with a perfect link, so both sides of every peer see
// the same kind of net.PacketConn.
func start(ctx context.Context, p Peer, w Workload, o Options, seed uint64) (*env, func(), error) {
	listen := listenUDP
	if w.net != nil {
		listen = func() (net.PacketConn, error) { return w.net.ListenPacket("") }
	}
	raw, err := listen()
	if err != nil {
		return nil, nil, err
	}
	server := netsim.Wrap(raw, netsim.Config{})
	ln, err := p.Listen(ctx, server, o)
	if err != nil {
		return nil, nil, fmt.Errorf("listen: %w", err)
	}
	epoch := time.Now()
	e := &env{epoch: epoch, rec: newRecorder(epoch), sent: make(map[series]int), firstSent: make(map[series]time.Duration),
		clients: make([]Conn, w.Conns), links: make([]*netsim.PacketConn, w.Conns)}

	var mu sync.Mutex
	var accepted []Conn
	acceptErr := make(chan error, 1)
	go func() {
		for range w.Conns {
			c, err := ln.Accept(ctx)
			if err != nil {
				acceptErr <- err
				return
			}
			mu.Lock()
			accepted = append(accepted, c)
			mu.Unlock()
			go func() {
				for {
					msg, err := c.Receive(ctx)
					if err != nil {
						return
					}
					e.rec.record(msg)
				}
			}()
		}
		acceptErr <- nil
	}()
	cleanup := func() {
		for _, c := range e.clients {
			if c != nil {
				c.Close()
			}
		}
		mu.Lock()
		for _, c := range accepted {
			c.Close()
		}
		mu.Unlock()
		ln.Close()
	}

	// Dial in parallel (W5 has 1,000 connections, each a round trip or two).
	sem := make(chan struct{}, 16)
	dialErrs := make(chan error, w.Conns)
	for i := range w.Conns {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			raw, err := listen()
			if err != nil {
				dialErrs <- err
				return
			}
			e.links[i] = netsim.Wrap(raw, netsim.Config{Seed: seed + uint64(i), Out: w.Link, In: w.Link, OutVia: w.via})
			c, err := p.Dial(ctx, e.links[i], server.LocalAddr(), o)
			e.clients[i] = c
			dialErrs <- err
		}()
	}
	for range w.Conns {
		if err = errors.Join(err, <-dialErrs); err != nil {
			break
		}
	}
	if err == nil {
		// A handshake can stall under loss; carry on with what was
		// accepted rather than fail a long run (Result.ConnsAccepted).
		select {
		case err = <-acceptErr:
		case <-time.After(60 * time.Second):
		}
	}
	if err != nil {
		for range cap(sem) {
			sem <- struct{}{} // wait for the dialers before cleaning up
		}
		cleanup()
		return nil, nil, fmt.Errorf("connect: %w", err)
	}
	e.accepted = func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(accepted)
	}
	return e, cleanup, nil
}

// wire sums the packets and bytes every client socket sent and received
// (counted where they enter the impairment, so lost packets count too).
func (e *env) wire() (packets, bytes uint64) {
	for _, l := range e.links {
		st := l.Stats()
		packets += st.Out.Packets + st.In.Packets
		bytes += st.Out.Bytes + st.In.Bytes
	}
	return packets, bytes
}

// socketBuffer is the kernel buffer size asked for on every socket. The
// default (about 200 KiB on Linux) overflows when a bulk sender's burst
// arrives at once, and drops outside netsim's model would distort the
// figures; quic-go asks for this much itself on sockets it can reach.
const socketBuffer = 4 << 20

// listenUDP opens a loopback UDP socket with large kernel buffers (as far
// as the system allows; failures to enlarge them are ignored).
func listenUDP() (net.PacketConn, error) {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	c.SetReadBuffer(socketBuffer)
	c.SetWriteBuffer(socketBuffer)
	return c, nil
}
