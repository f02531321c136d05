package transport

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/secure"
)

// A stream carries datagrams over a reliable byte stream or message
// stream, for networks that block UDP: the same Session, handshake and
// encryption run over it unchanged, so a Conn over TCP or WebSocket has
// the same channel API as one over UDP.
type stream interface {
	// readFrame reads the next datagram into b and returns its length.
	// Any error is final.
	readFrame(b []byte, idle time.Duration) (int, error)
	// writeFrame writes one datagram; safe for concurrent use.
	writeFrame(b []byte) error
	close() error
	localAddr() net.Addr
	remoteAddr() net.Addr
}

// maxFrame is the largest datagram a stream carries (the largest MTU).
const maxFrame = maxMTU

// streamWriteTimeout bounds a write to a stream whose peer stopped
// reading; the stream is closed after it.
const streamWriteTimeout = 5 * time.Second

// errStreamClosed ends the read loop of a stream's endpoint: it wraps
// net.ErrClosed, which the endpoint treats as final.
var errStreamClosed = fmt.Errorf("transport: stream ended: %w", net.ErrClosed)

// tcpStream frames datagrams on a TCP connection with a 4-byte big-endian
// length prefix (transport seed §5.2).
type tcpStream struct {
	c  net.Conn
	r  *bufio.Reader
	mu sync.Mutex // orders writes
	wb []byte
}

func newTCPStream(c net.Conn) *tcpStream {
	return &tcpStream{c: c, r: bufio.NewReaderSize(c, 16<<10)}
}

func (s *tcpStream) readFrame(b []byte, idle time.Duration) (int, error) {
	if idle > 0 {
		_ = s.c.SetReadDeadline(time.Now().Add(idle))
	}
	var hdr [4]byte
	if _, err := io.ReadFull(s.r, hdr[:]); err != nil {
		return 0, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > maxFrame || int(n) > len(b) {
		return 0, fmt.Errorf("%w: stream frame of %d bytes", ErrMalformed, n)
	}
	if _, err := io.ReadFull(s.r, b[:n]); err != nil {
		return 0, err
	}
	return int(n), nil
}

func (s *tcpStream) writeFrame(b []byte) error {
	if len(b) > maxFrame {
		return fmt.Errorf("%w: %d bytes", ErrMessageTooLarge, len(b))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wb = binary.BigEndian.AppendUint32(s.wb[:0], uint32(len(b)))
	s.wb = append(s.wb, b...)
	_ = s.c.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	_, err := s.c.Write(s.wb)
	return err
}

func (s *tcpStream) close() error         { return s.c.Close() }
func (s *tcpStream) localAddr() net.Addr  { return s.c.LocalAddr() }
func (s *tcpStream) remoteAddr() net.Addr { return s.c.RemoteAddr() }

// streamPacketConn is the client side: a PacketConn over one stream to the
// server.
type streamPacketConn struct {
	s    stream
	once sync.Once
}

func (c *streamPacketConn) ReadFrom(b []byte) (int, net.Addr, error) {
	n, err := c.s.readFrame(b, 0)
	if err != nil {
		c.Close()
		return 0, nil, errStreamClosed
	}
	return n, c.s.remoteAddr(), nil
}

func (c *streamPacketConn) WriteTo(b []byte, _ net.Addr) (int, error) {
	if err := c.s.writeFrame(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (c *streamPacketConn) Close() error {
	c.once.Do(func() { _ = c.s.close() })
	return nil
}

// reliableLinker is implemented by the PacketConns whose datagrams all arrive, in
// order: those over a stream. The driver runs their Sessions with
// SessionParams.ReliableLink, which bypasses the acknowledgement machinery.
type reliableLinker interface{ reliableLink() bool }

// isReliableLink reports whether pc carries datagrams over a stream.
func isReliableLink(pc net.PacketConn) bool {
	r, ok := pc.(reliableLinker)
	return ok && r.reliableLink()
}

func (c *streamPacketConn) reliableLink() bool { return true }

func (c *streamPacketConn) LocalAddr() net.Addr              { return c.s.localAddr() }
func (c *streamPacketConn) SetDeadline(time.Time) error      { return nil }
func (c *streamPacketConn) SetReadDeadline(time.Time) error  { return nil }
func (c *streamPacketConn) SetWriteDeadline(time.Time) error { return nil }

// streamServer is the server side: a PacketConn whose datagrams come from
// and go to many streams, one per client, keyed by the client's address.
// It bounds the number of streams, closes a stream silent for longer than
// idle, and closes a client's stream when its connection ends.
type streamServer struct {
	local   net.Addr
	idle    time.Duration
	max     int
	in      chan streamPacket
	done    chan struct{}
	onClose func()         // closes what feeds the server (a net.Listener)
	onEnd   func(net.Addr) // a client's stream ended

	mu      sync.Mutex
	streams map[string]stream
	perIP   map[netip.Addr]int
	maxIP   int // streams per client IP
	closed  bool
	wg      sync.WaitGroup
	refused atomic.Uint64 // streams closed at once: over a limit
}

type streamPacket struct {
	b    []byte
	from net.Addr
}

// newStreamServer returns a stream server bounded by the listener's
// connection limit and, per client IP, by twice the secure per-IP limit
// (a stream per handshake in progress and per connection; plaintext
// listeners use the default limit too: every stream holds a socket).
func newStreamServer(local net.Addr, set *settings) *streamServer {
	var lim secure.Limits
	if set.security != nil {
		lim = set.security.Limits
	}
	return &streamServer{
		local:   local,
		idle:    set.idleTimeout,
		max:     set.maxConns,
		in:      make(chan streamPacket, 64),
		done:    make(chan struct{}),
		streams: make(map[string]stream),
		perIP:   make(map[netip.Addr]int),
		maxIP:   2 * lim.Resolved().MaxPerIP,
	}
}

// ipOf returns the client IP of a stream, or the zero Addr.
func ipOf(a net.Addr) netip.Addr {
	ap, _ := addrPortOf(a)
	return ap.Addr().Unmap()
}

// serve reads a client's stream until it ends; it returns once the stream
// is closed.
func (s *streamServer) serve(st stream) {
	key, ip := st.remoteAddr().String(), ipOf(st.remoteAddr())
	s.mu.Lock()
	if s.closed || len(s.streams) >= s.max || s.streams[key] != nil || s.perIP[ip] >= s.maxIP {
		s.mu.Unlock()
		s.refused.Add(1)
		_ = st.close()
		return
	}
	s.streams[key] = st
	s.perIP[ip]++
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	defer s.onEnd(st.remoteAddr())
	defer s.forget(st.remoteAddr())
	buf := make([]byte, maxFrame)
	for {
		n, err := st.readFrame(buf, s.idle)
		if err != nil {
			return
		}
		select {
		case s.in <- streamPacket{b: append([]byte(nil), buf[:n]...), from: st.remoteAddr()}:
		case <-s.done:
			return
		}
	}
}

// forget closes the stream of addr: its connection ended.
func (s *streamServer) forget(addr net.Addr) {
	key := addr.String()
	s.mu.Lock()
	st := s.streams[key]
	if st != nil {
		delete(s.streams, key)
		if ip := ipOf(addr); s.perIP[ip] <= 1 {
			delete(s.perIP, ip)
		} else {
			s.perIP[ip]--
		}
	}
	s.mu.Unlock()
	if st != nil {
		_ = st.close()
	}
}

func (s *streamServer) ReadFrom(b []byte) (int, net.Addr, error) {
	select {
	case p := <-s.in:
		return copy(b, p.b), p.from, nil
	case <-s.done:
		return 0, nil, errStreamClosed
	}
}

func (s *streamServer) WriteTo(b []byte, addr net.Addr) (int, error) {
	s.mu.Lock()
	st := s.streams[addr.String()]
	s.mu.Unlock()
	if st == nil {
		return 0, fmt.Errorf("transport: no stream to %v", addr)
	}
	if err := st.writeFrame(b); err != nil {
		s.forget(addr)
		return 0, err
	}
	return len(b), nil
}

func (s *streamServer) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	streams := s.streams
	s.streams, s.perIP = map[string]stream{}, map[netip.Addr]int{}
	s.mu.Unlock()
	if s.onClose != nil {
		s.onClose()
	}
	for _, st := range streams {
		_ = st.close()
	}
	s.wg.Wait()
	return nil
}

func (s *streamServer) reliableLink() bool { return true }

func (s *streamServer) LocalAddr() net.Addr              { return s.local }
func (s *streamServer) SetDeadline(time.Time) error      { return nil }
func (s *streamServer) SetReadDeadline(time.Time) error  { return nil }
func (s *streamServer) SetWriteDeadline(time.Time) error { return nil }

// ServeTCP accepts connections over TCP on ln as well (the fallback for
// networks that block UDP), with the same handshake, encryption, limits
// and Accept queue. The Listener owns ln from now on.
func (l *Listener) ServeTCP(ln net.Listener) error {
	ss := newStreamServer(ln.Addr(), l.set)
	ss.onClose = func() { _ = ln.Close() }
	ep, err := l.serve(ss)
	if err != nil {
		_ = ln.Close()
		return err
	}
	ss.onEnd = ep.peerGone
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					continue
				}
				return
			}
			go ss.serve(newTCPStream(c))
		}
	}()
	return nil
}

// ListenTCP listens for connections over TCP on an address such as ":7777".
func ListenTCP(ctx context.Context, addr string, cfg Config) (*Listener, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	set, err := cfg.resolve()
	if err != nil {
		ln.Close()
		return nil, err
	}
	l, err := newListener(set)
	if err != nil {
		ln.Close()
		return nil, err
	}
	if err := l.ServeTCP(ln); err != nil {
		return nil, err
	}
	return l, nil
}

// DialTCP connects over TCP to an address such as "example.net:7777".
func DialTCP(ctx context.Context, addr string, cfg Config) (*Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return Dial(ctx, &streamPacketConn{s: newTCPStream(c)}, c.RemoteAddr(), cfg)
}
