package transport

import (
	"container/heap"
	"sync"
	"time"
)

// connTimers runs the timers of every connection of an endpoint that
// writes in batches (UDP), on one goroutine: instead of a goroutine and a
// timer per connection, the connections' deadlines wait in one heap, and
// each wake-up steps every connection that is due or was woken (a state
// change, a message to send, a close) and writes all their datagrams in
// one batch (one sendmmsg). Endpoints whose writes may block (streams,
// other PacketConns) keep a goroutine per connection (Conn.run).
type connTimers struct {
	mu    sync.Mutex
	due   dueHeap // connections with a deadline, earliest first
	ready []*Conn // woken connections, to step at the next turn
	kick  chan struct{}
	quit  chan struct{}
	done  chan struct{}

	// Owned by the loop.
	turn  []*Conn
	ended []*Conn
	group FlushGroup
}

// timerSlot is a connection's place in its endpoint's connTimers, guarded
// by connTimers.mu.
type timerSlot struct {
	at       time.Time // the deadline it waits for in the heap
	index    int       // in the heap; -1: not in it
	ready    bool      // in ready
	stepping bool      // in the loop's turn
	finished bool      // ended: never stepped again
}

func newConnTimers() *connTimers {
	t := &connTimers{kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go t.loop()
	return t
}

// arm sets c's deadline (zero: none). sendMu of c is held.
func (t *connTimers) arm(c *Conn, at time.Time) {
	t.mu.Lock()
	s := &c.slot
	switch {
	case s.finished:
	case at.IsZero():
		if s.index >= 0 {
			heap.Remove(&t.due, s.index)
		}
	case s.index >= 0:
		s.at = at
		heap.Fix(&t.due, s.index)
	default:
		s.at = at
		heap.Push(&t.due, c)
	}
	first := s.index == 0
	t.mu.Unlock()
	if first {
		signal(t.kick) // the loop may sleep for a later deadline
	}
}

// wake has c stepped at the loop's next turn.
func (t *connTimers) wake(c *Conn) {
	t.mu.Lock()
	s := &c.slot
	add := !s.ready && !s.finished
	if add {
		s.ready = true
		t.ready = append(t.ready, c)
	}
	t.mu.Unlock()
	if add {
		signal(t.kick)
	}
}

// loop steps the due and woken connections until stop.
func (t *connTimers) loop() {
	defer close(t.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		select {
		case <-t.kick:
		case <-timer.C:
		case <-t.quit:
			return
		}
		t.step()
		t.mu.Lock()
		next := time.Time{}
		if len(t.due) > 0 {
			next = t.due[0].slot.at
		}
		t.mu.Unlock()
		if !next.IsZero() {
			timer.Reset(time.Until(next))
		}
	}
}

// step runs one turn: it takes the connections that are due or woken,
// pumps them into one batch write, then finishes those that ended (after
// their last datagrams left).
func (t *connTimers) step() {
	now := time.Now()
	t.mu.Lock()
	turn := t.turn[:0]
	for _, c := range t.ready { // woken, maybe before an earlier turn finished it
		c.slot.ready = false
		if !c.slot.stepping && !c.slot.finished {
			c.slot.stepping = true
			turn = append(turn, c)
		}
	}
	clear(t.ready)
	t.ready = t.ready[:0]
	for len(t.due) > 0 && !t.due[0].slot.at.After(now) {
		c := heap.Pop(&t.due).(*Conn)
		if !c.slot.stepping {
			c.slot.stepping = true
			turn = append(turn, c)
		}
	}
	for _, c := range turn {
		c.slot.stepping = false
	}
	t.mu.Unlock()
	t.group.reset()
	ended := t.ended[:0]
	for _, c := range turn {
		if c.step(&t.group) {
			ended = append(ended, c)
		}
	}
	t.group.write()
	for _, c := range ended {
		t.mu.Lock()
		c.slot.finished = true
		if c.slot.index >= 0 {
			heap.Remove(&t.due, c.slot.index)
		}
		t.mu.Unlock()
		c.finish()
	}
	clear(turn)
	clear(ended)
	t.turn, t.ended = turn[:0], ended[:0]
}

// stop ends the loop; the endpoint's connections have all finished.
func (t *connTimers) stop() {
	close(t.quit)
	<-t.done
}

// dueHeap orders connections by their deadline.
type dueHeap []*Conn

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].slot.at.Before(h[j].slot.at) }
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].slot.index, h[j].slot.index = i, j
}
func (h *dueHeap) Push(x any) {
	c := x.(*Conn)
	c.slot.index = len(*h)
	*h = append(*h, c)
}
func (h *dueHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	c.slot.index = -1
	return c
}
