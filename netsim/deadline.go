package netsim

import (
	"sync"
	"time"
)

// deadline turns a SetReadDeadline/SetWriteDeadline time into a channel
// that is closed once the time has passed, so blocked calls can select on
// it. Moving the deadline before it fires keeps the channel, so callers
// already waiting observe the new time.
type deadline struct {
	mu      sync.Mutex
	at      time.Time // zero: no deadline
	timer   *time.Timer
	expired chan struct{}
}

func newDeadline() *deadline {
	return &deadline{expired: make(chan struct{})}
}

// deadlines are a connection's read and write deadlines. Embedded, they
// give it net.PacketConn's deadline methods.
type deadlines struct {
	readDeadline, writeDeadline *deadline
}

func newDeadlines() deadlines {
	return deadlines{readDeadline: newDeadline(), writeDeadline: newDeadline()}
}

// SetDeadline sets the read and write deadlines.
func (d deadlines) SetDeadline(t time.Time) error {
	d.readDeadline.set(t)
	d.writeDeadline.set(t)
	return nil
}

// SetReadDeadline sets the deadline of ReadFrom.
func (d deadlines) SetReadDeadline(t time.Time) error {
	d.readDeadline.set(t)
	return nil
}

// SetWriteDeadline sets the deadline of WriteTo. WriteTo never blocks, so
// only a deadline already in the past has an effect.
func (d deadlines) SetWriteDeadline(t time.Time) error {
	d.writeDeadline.set(t)
	return nil
}

// set arms the deadline at t; the zero time disarms it.
func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.expired // the timer fired: wait for its close to finish
	}
	d.timer = nil
	d.at = t
	closed := isClosed(d.expired)
	if closed {
		d.expired = make(chan struct{})
	}
	if t.IsZero() {
		return
	}
	if dur := time.Until(t); dur > 0 {
		ch := d.expired
		d.timer = time.AfterFunc(dur, func() { close(ch) })
		return
	}
	close(d.expired)
}

// wait returns a channel closed when the deadline has passed.
func (d *deadline) wait() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.expired
}

// passed reports whether the deadline has passed, even if its timer has
// not run yet.
func (d *deadline) passed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return isClosed(d.expired) || (!d.at.IsZero() && !time.Now().Before(d.at))
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
