package main

import (
	"bufio"
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/xtaci/kcp-go/v5"
)

// kcpPeer adapts github.com/xtaci/kcp-go/v5. The reliable lanes share the
// session's single KCP stream (stream mode, length-prefixed frames), so a
// Critical message waits behind queued Bulk data: KCP has no priorities.
// Unreliable messages use kcp-go's out-of-band packets, which exist only
// with FEC enabled, so FEC (10 data + 3 parity shards, the library's
// example setting) is on exactly when a workload uses that lane.
//
// The session uses kcp-go's fastest profile: nodelay, a 10 ms interval,
// fast resend after 2 duplicate acks, no congestion window, immediate
// acks, no write delay, 1024-segment windows and the workload's MTU. Its
// rate limit stays off: set to W4's cap it made both the Critical latency
// and the Bulk goodput worse in a trial run.
type kcpPeer struct{}

// shards is the FEC setting: on only for workloads with unreliable data.
func shards(o Options) (data, parity int) {
	if o.Unreliable {
		return 10, 3
	}
	return 0, 0
}

func (kcpPeer) Listen(ctx context.Context, pc net.PacketConn, o Options) (Listener, error) {
	ds, ps := shards(o)
	l, err := kcp.ServeConn(nil, ds, ps, pc)
	if err != nil {
		pc.Close()
		return nil, err
	}
	return &kcpListener{l: l, pc: pc, opts: o}, nil
}

func (kcpPeer) Dial(ctx context.Context, pc net.PacketConn, remote net.Addr, o Options) (Conn, error) {
	ds, ps := shards(o)
	s, err := kcp.NewConn4(rand.Uint32(), remote, nil, ds, ps, true, pc)
	if err != nil {
		pc.Close()
		return nil, err
	}
	c := newKCPConn(s, o)
	// KCP has no handshake: the listener creates the session when the
	// first packet arrives, so announce the connection with an empty frame.
	if err := c.writeFrame(nil); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

type kcpListener struct {
	l    *kcp.Listener
	pc   net.PacketConn
	opts Options
}

func (l *kcpListener) Accept(ctx context.Context) (Conn, error) {
	stop := context.AfterFunc(ctx, func() { l.l.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	s, err := l.l.AcceptKCP()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return newKCPConn(s, l.opts), nil
}

func (l *kcpListener) Close() error {
	err := l.l.Close()
	l.pc.Close() // ServeConn does not own the socket
	return err
}

type kcpConn struct {
	s       *kcp.UDPSession
	in      chan []byte
	writeMu sync.Mutex

	readErr  error
	readDone chan struct{}
	done     chan struct{}
	once     sync.Once
}

func newKCPConn(s *kcp.UDPSession, o Options) *kcpConn {
	//lint:ignore SA1019 stream mode packs small writes into full segments; kcp-go has no replacement
	s.SetStreamMode(true)
	s.SetNoDelay(1, 10, 2, 1)
	s.SetWindowSize(1024, 1024)
	s.SetACKNoDelay(true)
	s.SetWriteDelay(false)
	if o.MTU > 0 {
		s.SetMtu(o.MTU)
	}
	c := &kcpConn{s: s, in: make(chan []byte, 4096), readDone: make(chan struct{}), done: make(chan struct{})}
	if o.Unreliable {
		// The callback runs on kcp-go's input path and must not block.
		s.SetOOBHandler(func(b []byte) {
			select {
			case c.in <- append([]byte(nil), b...):
			default:
			}
		})
	}
	go c.readLoop()
	if o.Keepalive > 0 {
		go c.keepalive(o.Keepalive)
	}
	return c
}

func (c *kcpConn) readLoop() {
	defer close(c.readDone)
	r := bufio.NewReaderSize(c.s, 64<<10)
	for {
		msg, err := readFrame(r)
		if err != nil {
			c.readErr = err
			return
		}
		if len(msg) == 0 {
			continue // hello or keepalive
		}
		select {
		case c.in <- msg:
		case <-c.done:
			return
		}
	}
}

// keepalive sends an empty frame every interval: kcp-go has no keepalive.
func (c *kcpConn) keepalive(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			c.writeFrame(nil)
		}
	}
}

func (c *kcpConn) writeFrame(msg []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.s.Write(appendFrame(nil, msg))
	return err
}

func (c *kcpConn) Send(lane Lane, msg []byte) error {
	if lane == Unreliable {
		if c.s.GetOOBMaxSize() == 0 {
			return errors.New("kcp: unreliable lane needs FEC")
		}
		return c.s.SendOOB(msg)
	}
	return c.writeFrame(msg)
}

func (c *kcpConn) Receive(ctx context.Context) ([]byte, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.readDone:
		return nil, c.readErr
	}
}

func (c *kcpConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.done)
		err = c.s.Close()
	})
	return err
}
