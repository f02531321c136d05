package transport

import "sync"

// A MessageHandler takes a connection's messages as they arrive, on the
// endpoint's read goroutine, instead of a reader calling Receive: no
// goroutine waits for them and no channel carries them. It must not
// block: it runs between the reads of the socket.
type MessageHandler interface {
	// HandleMessage takes the connection's next message (it owns
	// m.Data) and returns what to wake once the whole batch of datagrams
	// read with it is handled (nil: nothing). Calls for one connection
	// never overlap and come in the order received.
	HandleMessage(c *Conn, m Message) Waker
	// HandleEnd is called once, after the last HandleMessage, when the
	// connection ends, with the reason Receive would return. It runs on
	// the goroutine that runs the endpoint's timers, and may block
	// briefly (take locks); it must not wait for connections (Close
	// waits for this call to return).
	HandleEnd(c *Conn, err error)
}

// A Waker is woken once per read batch that handed it a message (a room's
// inbox waking its goroutine), however many messages the batch held.
type Waker interface{ Wake() }

// handoff is the connection's side of a MessageHandler.
type handoff struct {
	mu      sync.Mutex // orders the calls to the handler
	handler MessageHandler
	ended   bool      // HandleEnd was due (called if a handler was set)
	msgs    []Message // taken from the session, being handed over
	wakers  []Waker   // without a read batch: woken after the hand-over
}

// SetHandler hands the connection's messages to h from now on, starting
// with those received and not yet read; if the connection has ended, h
// learns it at once. Receive then only reports the end. A connection
// takes one handler; SetHandler(nil) is ignored.
func (c *Conn) SetHandler(h MessageHandler) {
	if h == nil {
		return
	}
	d := &c.handoff
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.handler != nil {
		return
	}
	d.handler = h
	c.handOver(nil)
	if d.ended {
		c.mu.Lock()
		err := c.sess.Err()
		c.mu.Unlock()
		h.HandleEnd(c, err)
	}
}

// deliver hands what the session received to the handler, if one is
// set. With a read batch, the wakers wait for the end of the batch.
func (c *Conn) deliver(rb *readBatch) {
	d := &c.handoff
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.handler != nil {
		c.handOver(rb)
	}
}

// deliverEnd hands the last messages and the end to the handler; without
// a handler it notes the end for SetHandler.
func (c *Conn) deliverEnd(err error) {
	d := &c.handoff
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ended {
		return
	}
	d.ended = true
	if d.handler != nil {
		c.handOver(nil)
		d.handler.HandleEnd(c, err)
	}
}

// handOver moves the session's received messages to the handler and
// wakes what they woke (at the end of rb, if given). d.mu must be held.
func (c *Conn) handOver(rb *readBatch) {
	d := &c.handoff
	c.mu.Lock()
	for {
		m, ok := c.sess.Receive()
		if !ok {
			break
		}
		d.msgs = append(d.msgs, m)
	}
	c.mu.Unlock()
	for _, m := range d.msgs {
		w := d.handler.HandleMessage(c, m)
		switch {
		case w == nil:
		case rb != nil:
			rb.wake(w)
		default:
			d.wakers = addWaker(d.wakers, w)
		}
	}
	clear(d.msgs)
	d.msgs = d.msgs[:0]
	for _, w := range d.wakers {
		w.Wake()
	}
	clear(d.wakers)
	d.wakers = d.wakers[:0]
}

// addWaker adds w to ws unless it is there.
func addWaker(ws []Waker, w Waker) []Waker {
	for _, x := range ws {
		if x == w {
			return ws
		}
	}
	return append(ws, w)
}
