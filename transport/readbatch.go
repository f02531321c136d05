package transport

import "slices"

// readBatch collects the connections a batch of received datagrams
// touched, so that their answers (acknowledgements, and whatever else the
// datagrams let them send) leave together: one batched write for the
// whole read instead of one per datagram. Only the read goroutine uses
// it.
type readBatch struct {
	conns  []*Conn
	wakers []Waker // what the batch's messages woke (MessageHandler)
	group  FlushGroup
}

// wake notes a waker to wake at the end of the batch.
func (rb *readBatch) wake(w Waker) { rb.wakers = addWaker(rb.wakers, w) }

// add notes a connection that handled a datagram of the batch.
func (rb *readBatch) add(c *Conn) {
	if !slices.Contains(rb.conns, c) {
		rb.conns = append(rb.conns, c)
	}
}

// answer wakes what the batch's messages woke, then sends what the
// batch's connections have to send, without flushing what their
// applications queued for the next flush tick.
func (rb *readBatch) answer() {
	for _, w := range rb.wakers {
		w.Wake()
	}
	clear(rb.wakers)
	rb.wakers = rb.wakers[:0]
	if len(rb.conns) == 0 {
		return
	}
	rb.group.send(rb.conns, false)
	clear(rb.conns)
	rb.conns = rb.conns[:0]
}
