package transport

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// connKey identifies a connection on a socket: the peer address and the
// connection id.
type connKey struct {
	ap   netip.AddrPort // UDP peers
	addr string         // other PacketConn peers
	id   uint32
}

func keyOf(a net.Addr, id uint32) connKey {
	if u, ok := a.(*net.UDPAddr); ok {
		return connKey{ap: u.AddrPort(), id: id}
	}
	return connKey{addr: a.String(), id: id}
}

// endpoint owns a PacketConn: one reader goroutine routes datagrams to the
// connections, which write through it.
type endpoint struct {
	pc    net.PacketConn
	set   *settings
	codec *codec
	pool  *compressPool
	batch batchConn // nil: datagram by datagram
	// timers runs the connections' timers when batch is set; otherwise
	// each connection has a goroutine (Conn.run).
	timers *connTimers

	mu       sync.Mutex
	conns    map[connKey]*Conn
	listener *Listener // nil for a dialed connection
	closed   bool
	readDone chan struct{}

	// Encrypted endpoints (set.security != nil).
	pending    map[connKey]*pendingConn // server: handshakes past the cookie
	lastSweep  time.Time                // server: last sweep of pending
	handshakes chan []byte              // client: server handshake packets for Dial
	// unreachable is, for Dial, the first ICMP error the socket reported
	// (ErrUnreachable and the system's error); later ones are dropped.
	unreachable chan error
	sec         secCounters
	refused     atomic.Uint64 // plaintext hellos refused: MaxConnections reached
	overBudget  atomic.Uint64 // connections ended by the memory budget
}

func newEndpoint(pc net.PacketConn, set *settings) (*endpoint, error) {
	cdc, err := newCodec(set.maxMessage)
	if err != nil {
		return nil, err
	}
	ep := &endpoint{
		pc:          pc,
		set:         set,
		codec:       cdc,
		pool:        newCompressPool(cdc, set.workers),
		batch:       newBatchConn(pc),
		conns:       make(map[connKey]*Conn),
		readDone:    make(chan struct{}),
		pending:     make(map[connKey]*pendingConn),
		handshakes:  make(chan []byte, 16),
		unreachable: make(chan error, 1),
	}
	if ep.batch != nil {
		ep.timers = newConnTimers()
	}
	return ep, nil
}

// random returns a random 32-bit value, never zero.
func random32() uint32 {
	var b [4]byte
	for {
		_, _ = rand.Read(b[:])
		if v := binary.BigEndian.Uint32(b[:]); v != 0 {
			return v
		}
	}
}

// readLoop reads until the socket is closed.
func (ep *endpoint) readLoop() {
	defer close(ep.readDone)
	defer ep.peerGone(nil)
	if ep.batch != nil {
		ep.readBatches()
		return
	}
	buf := make([]byte, 1<<16)
	for {
		n, addr, err := ep.pc.ReadFrom(buf)
		if err != nil {
			if ep.fatal(err) {
				return
			}
			continue
		}
		ep.route(buf[:n], addr, nil)
	}
}

// peerGone ends the connections to addr (all of them if addr is nil) when
// the stream carrying them ended or the socket failed, unless the endpoint
// is closing them itself.
func (ep *endpoint) peerGone(addr net.Addr) {
	ep.mu.Lock()
	var gone []*Conn
	for _, c := range ep.conns {
		if !ep.closed && (addr == nil || c.addr.String() == addr.String()) {
			gone = append(gone, c)
		}
	}
	ep.mu.Unlock()
	for _, c := range gone {
		c.mu.Lock()
		c.sess.end(fmt.Errorf("%w: stream or socket closed", ErrPeerClosed))
		c.mu.Unlock()
		c.poke()
	}
}

// fatal reports whether a read error ends the read loop. An ICMP error
// is passed on to Dial.
func (ep *endpoint) fatal(err error) bool {
	if isUnreachable(err) {
		select {
		case ep.unreachable <- fmt.Errorf("%w: %w", ErrUnreachable, err):
		default:
		}
	}
	var ne net.Error
	if errors.Is(err, net.ErrClosed) || !(errors.As(err, &ne) && ne.Timeout()) && ep.isClosed() {
		return true
	}
	// Transient errors (ICMP-induced, timeouts): back off a little.
	time.Sleep(time.Millisecond)
	return ep.isClosed()
}

// isUnreachable reports whether a read error is the network's report
// that the peer cannot be reached (an ICMP error on a connected socket).
func isUnreachable(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH)
}

func (ep *endpoint) isClosed() bool {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return ep.closed
}

// route hands a datagram to its connection, creating a server connection
// for a valid hello when listening. With rb, the connection's answer
// waits for the batch's write.
func (ep *endpoint) route(b []byte, addr net.Addr, rb *readBatch) {
	if ep.set.security != nil {
		ep.routeSecure(b, addr, rb)
		return
	}
	id, ok := peekConnID(b)
	if !ok {
		ep.refuseVersion(b, addr)
		return
	}
	key := keyOf(addr, id)
	ep.mu.Lock()
	c := ep.conns[key]
	if c == nil && ep.listener != nil && !ep.closed && isHello(b) {
		if len(ep.conns) >= ep.set.maxConns {
			ep.refused.Add(1)
		} else {
			c = ep.newConn(addr, key, SessionParams{ConnID: id, InitialSeq: random32(), Token: random32()})
			c.start()
		}
	}
	ep.mu.Unlock()
	if c != nil {
		c.handle(b, rb)
	}
}

// isHello reports whether a datagram opens with a client hello: the first
// message of the control channel.
func isHello(b []byte) bool {
	_, rest, err := parseHeader(b)
	if err != nil {
		return false
	}
	f, _, err := parseFrame(rest)
	return err == nil && f.channel == ChannelControl && f.seq == 0 && f.flags&frameFragment == 0 &&
		len(f.payload) > 0 && f.payload[0] == ctlHello
}

// newConn registers a connection; ep.mu must be held.
func (ep *endpoint) newConn(addr net.Addr, key connKey, p SessionParams) *Conn {
	p.ReliableLink = isReliableLink(ep.pc)
	now := time.Now()
	c := &Conn{
		ep:          ep,
		addr:        addr,
		key:         key,
		sess:        newSession(ep.set, p, now),
		wake:        make(chan struct{}, 1),
		readable:    make(chan struct{}, 1),
		established: make(chan struct{}),
		done:        make(chan struct{}),
		slot:        timerSlot{index: -1},
	}
	if ep.timers == nil {
		c.timer = time.NewTimer(time.Hour)
		c.timer.Stop() // the first pump arms it
	}
	c.sess.cdc = ep.codec
	c.sess.async = func(j *compressJob) bool { return ep.pool.submit(j, c.compressed) }
	ep.conns[key] = c
	return c
}

// remove forgets a finished connection.
func (ep *endpoint) remove(c *Conn) {
	ep.mu.Lock()
	if ep.conns[c.key] == c {
		delete(ep.conns, c.key)
	}
	ep.mu.Unlock()
	c.mu.Lock()
	if c.sec != nil {
		c.sec.close()
	}
	c.mu.Unlock()
	if s, ok := ep.pc.(interface{ forget(net.Addr) }); ok {
		s.forget(c.addr) // a stream server closes the peer's stream
	}
}

// write sends datagrams to addr.
func (ep *endpoint) write(addr net.Addr, dgs [][]byte) {
	if len(dgs) == 0 {
		return
	}
	if ep.batch != nil {
		ep.writeBatch(addr, dgs)
		return
	}
	for _, d := range dgs {
		_, _ = ep.pc.WriteTo(d, addr)
	}
}

// shutdown closes every connection gracefully (within CloseTimeout), then
// the socket and the workers.
func (ep *endpoint) shutdown() {
	ep.mu.Lock()
	if ep.closed {
		ep.mu.Unlock()
		<-ep.readDone
		return
	}
	ep.closed = true
	conns := make([]*Conn, 0, len(ep.conns))
	for _, c := range ep.conns {
		conns = append(conns, c)
	}
	pending := ep.pending
	ep.pending = make(map[connKey]*pendingConn)
	ep.mu.Unlock()
	for _, p := range pending {
		p.close()
	}
	for _, c := range conns {
		c.startClose("")
	}
	for _, c := range conns {
		<-c.done
	}
	_ = ep.pc.Close()
	<-ep.readDone
	if ep.timers != nil {
		ep.timers.stop()
	}
	ep.pool.close()
	ep.codec.close()
}
