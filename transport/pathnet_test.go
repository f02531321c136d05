package transport

import (
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/netsim"
)

// This file drives pairs of Sessions over netsim Paths in virtual time:
// netsim's model of a link (bandwidth queue with tail drop, seeded loss,
// jitter, duplication), shared by several flows when they cross one
// bottleneck. It is the harness of the congestion and redundancy tests.

// pathFlow is one connection: side 0 is the client, side 1 the server;
// path[i] carries what side i sends.
type pathFlow struct {
	s    [2]*Session
	path [2]*netsim.Path
	wire [2]int // bytes each side put on the wire
	// onMessage sees every message a side receives.
	onMessage func(side int, m Message, now time.Time)
	// feed, when set, runs before the client side is serviced (a
	// sender keeping its queue full, or sending on a schedule).
	feed func(now time.Time)
	// nextFeed is when feed wants to run next; zero means only when the
	// client is serviced anyway.
	nextFeed time.Time
}

type pathPacket struct {
	at   time.Time
	n    int
	flow *pathFlow
	to   int
	data []byte
}

// pathNet is the event loop of several flows.
type pathNet struct {
	t     testing.TB
	now   time.Time
	flows []*pathFlow
	queue []pathPacket
	n     int
	buf   []byte
	// onDecide sees the fate of every datagram a client sends.
	onDecide func(f *pathFlow, sent time.Time, d netsim.Decision)
}

func newPathNet(t testing.TB) *pathNet { return &pathNet{t: t, now: simEpoch} }

// addFlow connects a client and a server session over out (client →
// server) and back.
func (n *pathNet) addFlow(client, server Config, out, back *netsim.Path) *pathFlow {
	n.t.Helper()
	f := &pathFlow{path: [2]*netsim.Path{out, back}}
	id := uint32(0xC0FFEE + len(n.flows))
	var err error
	if f.s[0], err = NewSession(client, SessionParams{Client: true, ConnID: id, InitialSeq: 1000}, n.now); err != nil {
		n.t.Fatal(err)
	}
	if f.s[1], err = NewSession(server, SessionParams{ConnID: id, InitialSeq: 5000, Token: 42}, n.now); err != nil {
		n.t.Fatal(err)
	}
	n.flows = append(n.flows, f)
	n.runUntil(func() bool { return f.s[0].State() == StateConnected && f.s[1].State() == StateConnected }, 10*time.Second)
	return f
}

func (n *pathNet) service(f *pathFlow, i int) {
	s := f.s[i]
	if i == 0 && f.feed != nil {
		f.feed(n.now)
	}
	if d := s.Deadline(n.now); !d.IsZero() && !d.After(n.now) {
		s.HandleTimeout(n.now)
	}
	for {
		var ok bool
		n.buf, ok = s.AppendDatagram(n.buf[:0], n.now)
		if !ok {
			break
		}
		f.wire[i] += len(n.buf)
		d := f.path[i].Decide(n.now, len(n.buf))
		if i == 0 && n.onDecide != nil {
			n.onDecide(f, n.now, d)
		}
		if d.Drop != netsim.Kept {
			continue
		}
		n.push(d.At, f, 1-i)
		if !d.DupAt.IsZero() {
			n.push(d.DupAt, f, 1-i)
		}
	}
	for {
		m, ok := s.Receive()
		if !ok {
			break
		}
		if f.onMessage != nil {
			f.onMessage(i, m, n.now)
		}
	}
}

func (n *pathNet) push(at time.Time, f *pathFlow, to int) {
	n.n++
	n.queue = append(n.queue, pathPacket{at: at, n: n.n, flow: f, to: to, data: slices.Clone(n.buf)})
}

// step advances to the next event, never past limit.
func (n *pathNet) step(limit time.Time) bool {
	next := limit
	for _, f := range n.flows {
		for i := range 2 {
			n.service(f, i)
			if d := f.s[i].Deadline(n.now); !d.IsZero() && d.Before(next) {
				next = d
			}
		}
		if !f.nextFeed.IsZero() && f.nextFeed.Before(next) {
			next = f.nextFeed
		}
	}
	for _, p := range n.queue {
		if p.at.Before(next) {
			next = p.at
		}
	}
	n.now = later(n.now, next)
	slices.SortFunc(n.queue, func(a, b pathPacket) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.n - b.n
	})
	k := 0
	for k < len(n.queue) && !n.queue[k].at.After(n.now) {
		p := n.queue[k]
		p.flow.s[p.to].HandleDatagram(p.data, n.now)
		n.service(p.flow, p.to)
		k++
	}
	n.queue = n.queue[k:]
	return n.now.Before(limit)
}

// runUntil steps until done; it fails the test after d of virtual time.
func (n *pathNet) runUntil(done func() bool, d time.Duration) {
	n.t.Helper()
	limit := n.now.Add(d)
	same, last := 0, n.now
	for !done() {
		if !n.step(limit) && !done() {
			n.t.Fatalf("not done after %v of virtual time", d)
		}
		if n.now.Equal(last) {
			if same++; same > 100000 {
				n.t.Fatalf("sessions spin at %v", n.now.Sub(simEpoch))
			}
		} else {
			same, last = 0, n.now
		}
	}
}

// runFor advances virtual time by d.
func (n *pathNet) runFor(d time.Duration) {
	n.t.Helper()
	end := n.now.Add(d)
	n.runUntil(func() bool { return !n.now.Before(end) }, d+time.Nanosecond)
}

// percentileOf returns the p-quantile of xs (sorted in place).
func percentileOf(xs []time.Duration, p float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[min(len(xs)-1, int(p*float64(len(xs))))]
}
