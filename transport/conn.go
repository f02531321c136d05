package transport

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// Conn is a connection: the driver of one Session. Send, Receive, Flush,
// Stats and Close are safe for concurrent use.
type Conn struct {
	ep   *endpoint
	addr net.Addr
	key  connKey

	mu   sync.Mutex // guards sess and sec
	sess *Session
	sec  *connSecurity // nil: plaintext

	sendMu sync.Mutex // guards arena, out, armed and runState, and orders writes
	arena  []byte
	out    [][]byte
	// The session's earliest deadline wakes the connection: its
	// endpoint's timers (UDP), or its own timer and run loop. Every pump,
	// on whatever goroutine, re-arms it (under sendMu) when the deadline
	// moved, so a deadline that passed out of date (an acknowledgement
	// that rode on a datagram meanwhile) costs no wake-up. armed is the
	// time it is set for (zero: none).
	timer *time.Timer // nil with the endpoint's timers
	slot  timerSlot   // with the endpoint's timers
	armed time.Time
	// runState is the state the last step saw: a pump elsewhere wakes
	// the connection when the state changed.
	runState State

	wake         chan struct{} // the run loop should re-evaluate
	readable     chan struct{} // a message arrived or the connection ended
	established  chan struct{} // closed when the handshake ends either way
	estOnce      sync.Once
	accepted     bool // queued for Accept
	done         chan struct{}
	ownsEP       bool      // dialed: closing the connection closes the socket
	ownsListener *Listener // Pipe's server side: closing closes the listener
	handoff      handoff   // the MessageHandler, if one is set
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// handle processes a datagram from the peer, opening it first (in place:
// b is the read loop's buffer) on an encrypted connection; datagrams that
// do not open are counted and dropped.
//
// With a batch (the read goroutine's batch of datagrams) the answer waits
// for the batch's one write; without, it leaves at once.
func (c *Conn) handle(b []byte, rb *readBatch) {
	now := time.Now()
	if c.sec == nil {
		c.handlePlain(b, now, rb)
		return
	}
	c.mu.Lock()
	plain, err := c.sec.open(b, now)
	c.mu.Unlock()
	if err != nil {
		c.ep.sec.openFailed(err)
		return
	}
	c.handlePlain(plain, now, rb)
}

// handlePlain processes a plaintext (or opened) datagram.
func (c *Conn) handlePlain(b []byte, now time.Time, rb *readBatch) {
	c.mu.Lock()
	c.sess.HandleDatagram(b, now)
	c.mu.Unlock()
	c.deliver(rb)
	// Answer at once, or with the batch (acknowledgements must keep up
	// with bursts), and move the timer if the datagram moved the deadline.
	if rb != nil {
		rb.add(c)
		return
	}
	c.pumpOutside()
}

// pumpOutside pumps from a goroutine other than the run loop, and wakes
// the run loop only when the state changed.
func (c *Conn) pumpOutside() {
	if _, _, wake := c.pump(false, nil); wake {
		c.poke()
	}
}

// compressed completes a job of the compression pool.
func (c *Conn) compressed(j *compressJob) {
	c.mu.Lock()
	c.sess.compressed(j)
	c.mu.Unlock()
	c.poke()
}

// pump runs due timers if asked (the run loop asks), sends what the
// session has to send, publishes its state and arms the timer at the
// session's next deadline. It returns that deadline and the state, and,
// called from elsewhere, whether the run loop must be woken to see a new
// state. With a group, the datagrams are copied into it for its batch
// write instead.
func (c *Conn) pump(timers bool, g *FlushGroup) (time.Time, State, bool) {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	now := time.Now()
	c.mu.Lock()
	s := c.sess
	if timers {
		if d := s.Deadline(now); !d.IsZero() && !d.After(now) {
			s.HandleTimeout(now)
		}
	}
	arena, out := c.arena[:0], c.out[:0]
	for {
		start := len(arena)
		var ok bool
		arena, ok = s.AppendDatagram(arena, now)
		if !ok {
			break
		}
		out = append(out, arena[start:len(arena):len(arena)])
		if len(out) >= 64 {
			break // write a batch; the run loop comes back for more
		}
	}
	if budget := s.set.memoryBudget; budget > 0 && s.State() != StateDisconnected {
		if n := s.MemoryInUse(); n > budget && s.Abort("memory budget exceeded", fmt.Errorf("%w: %d bytes, budget %d", ErrMemoryBudget, n, budget)) {
			c.ep.overBudget.Add(1)
			c.ep.set.logger.Warn("transport: memory budget exceeded", "peer", c.addr, "bytes", n)
		}
	}
	idle := c.authIdleDeadline()
	if !idle.IsZero() && !now.Before(idle) {
		s.end(fmt.Errorf("%w: no authenticated datagram within the idle limit", ErrTimeout))
	}
	state, readable := s.State(), s.inbox.len() > 0
	deadline := s.Deadline(now)
	if !idle.IsZero() && (deadline.IsZero() || idle.Before(deadline)) {
		deadline = idle
	}
	if len(out) == 64 {
		deadline = now
	}
	wire := out
	if c.sec != nil {
		wire = c.sec.seal(out)
	}
	c.mu.Unlock()
	if g != nil {
		g.add(c, wire)
	} else {
		c.ep.write(c.addr, wire)
	}
	c.arena, c.out = arena, out[:0]
	if readable || state == StateDisconnected {
		signal(c.readable)
	}
	if state != StateConnecting {
		c.estOnce.Do(func() { close(c.established) })
	}
	if timers || !deadline.Equal(c.armed) { // a step consumed the timer
		c.armed = deadline
		c.arm(deadline, now)
	}
	wake := false
	if timers {
		c.runState = state
	} else if state != c.runState {
		c.runState, wake = state, true
	}
	return deadline, state, wake
}

// arm wakes the connection at deadline (zero: never). sendMu is held.
func (c *Conn) arm(deadline, now time.Time) {
	switch {
	case c.ep.timers != nil:
		c.ep.timers.arm(c, deadline)
	case deadline.IsZero():
		c.timer.Stop()
	default:
		c.timer.Reset(deadline.Sub(now))
	}
}

// poke has the connection stepped soon: its state changed, or it has
// something to send.
func (c *Conn) poke() {
	if c.ep.timers != nil {
		c.ep.timers.wake(c)
		return
	}
	signal(c.wake)
}

// start has the connection stepped for the first time.
func (c *Conn) start() {
	if c.ep.timers != nil {
		c.ep.timers.wake(c)
		return
	}
	go c.run()
}

// step runs the session's due timers, sends what it has to send (into g,
// if given) and acts on its state: a server connection that connected
// is offered to Accept. It reports whether the connection ended (the
// caller finishes it, after writing g).
func (c *Conn) step(g *FlushGroup) bool {
	_, state, _ := c.pump(true, g)
	if state == StateConnected && c.ep.listener != nil && !c.accepted {
		c.accepted = true
		c.ep.listener.offer(c)
	}
	return state == StateDisconnected
}

// finish forgets an ended connection, hands its end to the handler and
// releases Close.
func (c *Conn) finish() {
	c.ep.remove(c)
	c.mu.Lock()
	err := c.sess.Err()
	c.mu.Unlock()
	c.ep.set.logger.Debug("transport: connection ended", "peer", c.addr, "err", err)
	c.deliverEnd(err)
	close(c.done)
}

// run is the goroutine of a connection whose endpoint's writes may block
// (no batch writes): it steps the connection when its timer fires or it
// is woken.
func (c *Conn) run() {
	defer c.timer.Stop()
	for !c.step(nil) {
		select {
		case <-c.wake:
		case <-c.timer.C:
		}
	}
	c.finish()
}

// RemoteAddr returns the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.addr }

// LocalAddr returns the local address of the socket.
func (c *Conn) LocalAddr() net.Addr { return c.ep.pc.LocalAddr() }

// Send queues a message on a channel; the data is copied. It never blocks:
// a full reliable channel returns ErrBackpressure (retry later). Other
// errors: ErrMessageTooLarge, ErrUnknownChannel, ErrClosed (or the reason
// the connection ended).
func (c *Conn) Send(ch ChannelID, data []byte) error {
	c.mu.Lock()
	err := c.sess.Send(ch, data, time.Now())
	if err == ErrClosed && c.sess.Err() != nil {
		err = c.sess.Err()
	}
	c.mu.Unlock()
	if err == nil && c.sess.set.flushInterval == 0 {
		c.poke()
	}
	return err
}

// Heard reports how many datagrams this side sent that ask for an
// acknowledgement, and how many times the peer's acknowledgements named
// a newer datagram as the latest it received. A peer whose count stands
// still while datagrams ask it takes nothing (a game server drops it, see
// server/room.SendGrace). Any datagram the peer names counts, whether it
// asked or not, so a lossy link or a stream of unreliable data still
// shows a peer that hears.
func (c *Conn) Heard() (asked, heard uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess.stats.asked, c.sess.stats.heard
}

// Flush sends queued messages now instead of at the next FlushInterval tick.
// On a UDP socket the caller writes them itself (a write does not block
// there), which spares a wake-up of the connection's goroutine; other
// PacketConns may block on a write, so their connection's goroutine does.
func (c *Conn) Flush() {
	c.mu.Lock()
	c.sess.Flush()
	c.mu.Unlock()
	if c.ep.batch != nil {
		c.pumpOutside()
		return
	}
	c.poke()
}

// Receive returns the next message, waiting until one arrives, the
// connection ends (the error says why: ErrPeerClosed, ErrTimeout, ErrClosed)
// or ctx is done. Messages received before the end are still returned.
// On a connection with a MessageHandler the messages go to the handler:
// Receive only reports the end.
func (c *Conn) Receive(ctx context.Context) (Message, error) {
	for {
		c.mu.Lock()
		m, ok := c.sess.Receive()
		more := c.sess.inbox.len() > 0
		err := c.sess.Err()
		c.mu.Unlock()
		if ok {
			if more {
				signal(c.readable)
			}
			return m, nil
		}
		if err != nil {
			signal(c.readable)
			return Message{}, err
		}
		select {
		case <-c.readable:
		case <-ctx.Done():
			return Message{}, ctx.Err()
		}
	}
}

// Stats returns a snapshot of the connection's statistics.
func (c *Conn) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess.Stats()
}

// State returns the connection's lifecycle state.
func (c *Conn) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess.State()
}

// Close closes the connection gracefully and waits until it has ended:
// queued reliable messages are delivered, then the peer is told, within
// CloseTimeout. A dialed connection also closes its socket.
func (c *Conn) Close() error { return c.CloseWithReason("") }

// CloseWithReason is Close with a reason the peer receives in its error.
func (c *Conn) CloseWithReason(reason string) error {
	c.startClose(reason)
	<-c.done
	if c.ownsEP {
		c.ep.shutdown()
	}
	if c.ownsListener != nil {
		c.ownsListener.Close()
	}
	return nil
}

func (c *Conn) startClose(reason string) {
	c.mu.Lock()
	c.sess.Close(reason, time.Now())
	c.mu.Unlock()
	c.poke()
}
