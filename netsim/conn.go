package netsim

import (
	"net"
	"os"
	"sync"
	"time"
)

// PacketConn wraps a net.PacketConn and impairs the packets written to it
// (Config.Out) and read from it (Config.In). It implements net.PacketConn
// and is safe for concurrent use.
//
// WriteTo never blocks: it decides the packet's fate and schedules it, and
// a scheduler goroutine writes it to the wrapped connection when it is
// due, so errors of the wrapped WriteTo are only counted (LinkStats.Failed).
// A reader goroutine reads the wrapped connection continuously and feeds
// the In direction, whose scheduler queues due packets for ReadFrom.
type PacketConn struct {
	pc  net.PacketConn
	out *scheduler
	in  *scheduler

	ready    chan datagram // arrived packets waiting for ReadFrom
	readErr  error         // why the reader stopped; set before readDone closes
	readDone chan struct{}

	deadlines

	closeOnce sync.Once
	done      chan struct{}
	wg        sync.WaitGroup
}

// Wrap returns pc impaired by cfg. The PacketConn owns pc: Close closes it.
// Wrap starts three goroutines (one scheduler per direction and a reader),
// all of which end when the PacketConn is closed.
func Wrap(pc net.PacketConn, cfg Config) *PacketConn {
	readQueue := cfg.ReadQueue
	if readQueue <= 0 {
		readQueue = DefaultReadQueue
	}
	c := &PacketConn{
		pc:        pc,
		ready:     make(chan datagram, readQueue),
		readDone:  make(chan struct{}),
		deadlines: newDeadlines(),
		done:      make(chan struct{}),
	}
	var out decider = NewPath(cfg.Out, cfg.Seed, 0)
	if cfg.OutVia != nil {
		out = cfg.OutVia
	}
	c.out = newScheduler(out, c.writeOut)
	c.in = newScheduler(NewPath(cfg.In, cfg.Seed, 1), c.queueIn)
	c.wg.Add(3)
	go c.out.run(c.done, &c.wg)
	go c.in.run(c.done, &c.wg)
	go c.readLoop()
	return c
}

// writeOut hands a due outgoing packet to the wrapped connection.
func (c *PacketConn) writeOut(d datagram) bool {
	_, err := c.pc.WriteTo(d.data, d.addr)
	return err == nil
}

// queueIn makes a due incoming packet readable, or drops it when the
// read queue is full.
func (c *PacketConn) queueIn(d datagram) bool {
	select {
	case c.ready <- d:
		return true
	default:
		return false
	}
}

// readLoop feeds packets of the wrapped connection into the In direction
// until reading fails (at the latest when Close closes the connection).
func (c *PacketConn) readLoop() {
	defer c.wg.Done()
	buf := make([]byte, 64<<10)
	for {
		n, addr, err := c.pc.ReadFrom(buf)
		if err != nil {
			c.readErr = err
			close(c.readDone)
			return
		}
		c.in.submit(time.Now(), append([]byte(nil), buf[:n]...), addr)
	}
}

// ReadFrom returns the next packet that has arrived through the In link.
func (c *PacketConn) ReadFrom(b []byte) (int, net.Addr, error) {
	if c.readDeadline.passed() {
		return 0, nil, c.opError("read", nil, os.ErrDeadlineExceeded)
	}
	select {
	case d := <-c.ready:
		return copy(b, d.data), d.addr, nil
	case <-c.done:
		return 0, nil, c.opError("read", nil, net.ErrClosed)
	case <-c.readDone:
		select {
		case d := <-c.ready:
			return copy(b, d.data), d.addr, nil
		default:
			return 0, nil, c.readErr
		}
	case <-c.readDeadline.wait():
		return 0, nil, c.opError("read", nil, os.ErrDeadlineExceeded)
	}
}

// WriteTo sends b to addr through the Out link. It copies b, never blocks
// and reports success even when the link drops the packet, like UDP.
func (c *PacketConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	switch {
	case isClosed(c.done):
		return 0, c.opError("write", addr, net.ErrClosed)
	case c.writeDeadline.passed():
		return 0, c.opError("write", addr, os.ErrDeadlineExceeded)
	}
	c.out.submit(time.Now(), append([]byte(nil), b...), addr)
	return len(b), nil
}

// Close closes the wrapped connection, stops the goroutines and unblocks
// pending ReadFrom calls. Packets still in flight are discarded.
func (c *PacketConn) Close() error {
	err := c.opError("close", nil, net.ErrClosed)
	c.closeOnce.Do(func() {
		close(c.done)
		err = c.pc.Close()
		c.wg.Wait()
	})
	return err
}

// LocalAddr returns the wrapped connection's address.
func (c *PacketConn) LocalAddr() net.Addr { return c.pc.LocalAddr() }

// SetLinks changes the impairment of both directions from the next packet
// on; packets already scheduled keep their fate.
func (c *PacketConn) SetLinks(out, in Link) {
	c.out.setLink(out)
	c.in.setLink(in)
}

// Stats returns the counters of both directions.
func (c *PacketConn) Stats() Stats {
	var st Stats
	st.Out, st.Out.Failed = c.out.stats()
	st.In, st.In.Overflow = c.in.stats()
	return st
}

func (c *PacketConn) opError(op string, addr net.Addr, err error) error {
	return &net.OpError{Op: op, Net: "netsim", Source: c.pc.LocalAddr(), Addr: addr, Err: err}
}

// scheduler is the thin shell around a Path: it stores decided packets on
// a timeline and one goroutine delivers them when due, with one timer.
type scheduler struct {
	deliver func(datagram) bool // false when the packet is dropped

	mu       sync.Mutex
	path     decider
	timeline timeline
	seq      uint64
	counts   LinkStats // Delivered and DeliveredBytes
	rejected uint64    // due packets deliver refused
	wake     chan struct{}
}

func newScheduler(p decider, deliver func(datagram) bool) *scheduler {
	return &scheduler{deliver: deliver, path: p, wake: make(chan struct{}, 1)}
}

// submit decides the fate of a packet sent at now and schedules it.
func (s *scheduler) submit(now time.Time, data []byte, addr net.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.path.Decide(now, len(data))
	if d.Drop != Kept {
		return
	}
	if d.CorruptBit >= 0 {
		data[d.CorruptBit/8] ^= 1 << (d.CorruptBit % 8)
	}
	earliest := s.schedule(d.At, data, addr)
	if !d.DupAt.IsZero() {
		// The copy shares data: neither delivery path modifies it.
		earliest = s.schedule(d.DupAt, data, addr) || earliest
	}
	if earliest {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

func (s *scheduler) schedule(at time.Time, data []byte, addr net.Addr) bool {
	s.seq++
	return s.timeline.push(timed{at: at, seq: s.seq, datagram: datagram{data: data, addr: addr}})
}

// run delivers packets when they are due until done is closed.
func (s *scheduler) run(done <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	timer := time.NewTimer(0)
	timer.Stop()
	var due []datagram
	for {
		// Packets are counted as delivered before they are handed on, so
		// the counters never lag behind what a receiver has already seen;
		// a failed hand-off is moved to rejected afterwards.
		s.mu.Lock()
		due = s.timeline.popDue(time.Now(), due[:0])
		for _, d := range due {
			s.counts.Delivered++
			s.counts.DeliveredBytes += uint64(len(d.data))
		}
		s.mu.Unlock()

		var failed, failedBytes uint64
		for _, d := range due {
			if !s.deliver(d) {
				failed++
				failedBytes += uint64(len(d.data))
			}
		}
		clear(due) // release the delivered packets

		s.mu.Lock()
		s.counts.Delivered -= failed
		s.counts.DeliveredBytes -= failedBytes
		s.rejected += failed
		next, ok := s.timeline.next()
		s.mu.Unlock()

		var fire <-chan time.Time
		if ok {
			timer.Reset(time.Until(next))
			fire = timer.C
		}
		select {
		case <-done:
			timer.Stop()
			return
		case <-s.wake:
		case <-fire:
		}
	}
}

func (s *scheduler) setLink(l Link) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.path.SetLink(l)
}

// stats returns the path's counters with the deliveries, and the number
// of due packets that deliver refused.
func (s *scheduler) stats() (LinkStats, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.path.Stats()
	st.Delivered, st.DeliveredBytes = s.counts.Delivered, s.counts.DeliveredBytes
	return st, s.rejected
}
