package join

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/transport"
)

// DefaultIdleTimeout is how long a client waits for the next message of
// its match before it gives up (WatchIdle): every model's server sends
// at least one message per tick while a match plays, so half a minute
// of silence on a connection the transport still holds open (its
// keep-alives answered) is a server that forgot the seat.
const DefaultIdleTimeout = 30 * time.Second

// ErrIdle reports a client that ended because no message of its match
// arrived within its idle timeout, although the connection was up.
var ErrIdle = errors.New("join: no message from the server within the idle timeout")

// IdleWatch closes a connection on which no message arrived for a while
// (WatchIdle). Every model's client runs one from its seat to its end,
// so a client ends on the MatchEnd, on the server's close or, if neither
// comes, on its idle timeout: it never waits forever.
type IdleWatch struct {
	conn  *transport.Conn
	after time.Duration
	fired atomic.Bool
	armed atomic.Bool
	stop  chan struct{}
	once  sync.Once
	done  chan struct{}
}

// WatchIdle starts watching conn, a seated client's connection: once
// armed (Arm: the client's match has begun; a seat waiting for its room
// to fill waits as long as it likes), when no message (on any channel)
// was delivered for after, it closes conn with a reason the server logs,
// and the client's reads end with the transport's error (Err wraps it
// in ErrIdle). after == 0 means DefaultIdleTimeout; a negative after
// watches nothing. Stop ends the watch; call it when the client's reads
// end.
func WatchIdle(conn *transport.Conn, after time.Duration) *IdleWatch {
	w := &IdleWatch{conn: conn, after: after, stop: make(chan struct{}), done: make(chan struct{})}
	if w.after == 0 {
		w.after = DefaultIdleTimeout
	}
	if w.after < 0 {
		close(w.done)
		return w
	}
	go w.run()
	return w
}

// run checks the connection's received-message count eight times per
// timeout.
func (w *IdleWatch) run() {
	defer close(w.done)
	t := time.NewTicker(max(w.after/8, time.Millisecond))
	defer t.Stop()
	seen, since := received(w.conn), time.Now()
	armed := false // as of the last check: the countdown starts at the first check armed
	for {
		select {
		case <-w.stop:
			return
		case now := <-t.C:
			if w.conn.State() == transport.StateDisconnected {
				return
			}
			n := received(w.conn)
			if n != seen || !armed {
				seen, since, armed = n, now, w.armed.Load()
				continue
			}
			if now.Sub(since) >= w.after {
				w.fired.Store(true)
				w.conn.CloseWithReason(fmt.Sprintf("client idle: nothing from the server for %v", w.after))
				return
			}
		}
	}
}

// received is the number of messages conn delivered, on every channel.
func received(conn *transport.Conn) uint64 {
	var n uint64
	for _, ch := range conn.Stats().Channels {
		n += ch.MessagesReceived
	}
	return n
}

// Arm starts the countdown, from the watch's next check (so the
// connection closes between after and after·9/8 of silence past Arm):
// the match has begun, and from now on its server sends something every
// tick.
func (w *IdleWatch) Arm() { w.armed.Store(true) }

// Stop ends the watch and waits for it.
func (w *IdleWatch) Stop() {
	w.once.Do(func() { close(w.stop) })
	<-w.done
}

// Err returns err, the error that ended the client's reads, wrapped in
// ErrIdle if the watch closed the connection.
func (w *IdleWatch) Err(err error) error {
	if err == nil || !w.fired.Load() {
		return err
	}
	return fmt.Errorf("%w (%v): %w", ErrIdle, w.after, err)
}
