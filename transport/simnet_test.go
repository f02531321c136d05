package transport

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// This file is a deterministic simulated network for driving two Sessions
// directly in virtual time, with seeded loss, duplication, reordering,
// latency and a bandwidth-limited link.

// impair describes one direction of a simulated link.
type impair struct {
	delay   time.Duration // one-way latency
	jitter  time.Duration // uniform extra latency in [0, jitter)
	loss    float64       // independent drop probability
	dup     float64       // duplication probability
	reorder float64       // probability of an extra delay of up to 2·delay
	rate    int           // bytes per second; 0 is unlimited
}

type simPacket struct {
	at   time.Time
	n    int // insertion order, to break ties deterministically
	to   int
	data []byte
}

// simNet connects session 0 (client) and session 1 (server).
type simNet struct {
	t     testing.TB
	rng   *rand.Rand
	now   time.Time
	s     [2]*Session
	link  [2]impair // link[i] carries datagrams from i to 1-i
	busy  [2]time.Time
	queue []simPacket
	seq   int
	// wire counts the bytes each side put on the wire.
	wire [2]int
	// onMessage is called for every message a side receives.
	onMessage func(side int, m Message)
	// hold[i] stops side i's application from reading.
	hold [2]bool
	// tap, when set, sees every datagram sent.
	tap func(from int, b []byte)
	buf []byte
}

var simEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func newSimNet(t testing.TB, seed uint64, client, server Config, ab, ba impair) *simNet {
	t.Helper()
	n := &simNet{t: t, rng: rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15)), now: simEpoch, link: [2]impair{ab, ba}}
	var err error
	n.s[0], err = NewSession(client, SessionParams{Client: true, ConnID: 0xC0FFEE, InitialSeq: 1000}, n.now)
	if err != nil {
		t.Fatal(err)
	}
	n.s[1], err = NewSession(server, SessionParams{ConnID: 0xC0FFEE, InitialSeq: 5000, Token: 42}, n.now)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// connect runs the handshake to completion.
func (n *simNet) connect() {
	n.t.Helper()
	n.runUntil(func() bool {
		return n.s[0].State() == StateConnected && n.s[1].State() == StateConnected
	}, 30*time.Second)
}

// transmit puts a datagram from side on the wire.
func (n *simNet) transmit(from int, b []byte) {
	n.wire[from] += len(b)
	if n.tap != nil {
		n.tap(from, b)
	}
	l := &n.link[from]
	depart := n.now
	if l.rate > 0 {
		depart = later(n.now, n.busy[from])
		depart = depart.Add(time.Duration(float64(len(b)) / float64(l.rate) * float64(time.Second)))
		n.busy[from] = depart
	}
	if n.rng.Float64() < l.loss {
		return
	}
	copies := 1
	if n.rng.Float64() < l.dup {
		copies = 2
	}
	for range copies {
		at := depart.Add(l.delay)
		if l.jitter > 0 {
			at = at.Add(time.Duration(n.rng.Int64N(int64(l.jitter))))
		}
		if n.rng.Float64() < l.reorder {
			at = at.Add(time.Duration(n.rng.Int64N(int64(2*l.delay) + 1)))
		}
		n.seq++
		n.queue = append(n.queue, simPacket{at: at, n: n.seq, to: 1 - from, data: slices.Clone(b)})
	}
}

// service lets side i run its timers and send what it has.
func (n *simNet) service(i int) {
	s := n.s[i]
	if d := s.Deadline(n.now); !d.IsZero() && !d.After(n.now) {
		s.HandleTimeout(n.now)
	}
	for {
		var ok bool
		n.buf, ok = s.AppendDatagram(n.buf[:0], n.now)
		if !ok {
			break
		}
		n.transmit(i, n.buf)
	}
	for !n.hold[i] {
		m, ok := s.Receive()
		if !ok {
			break
		}
		if n.onMessage != nil {
			n.onMessage(i, m)
		}
	}
}

// step advances to the next event, never past limit. It reports false if
// nothing is scheduled before limit.
func (n *simNet) step(limit time.Time) bool {
	n.service(0)
	n.service(1)
	next := limit
	for _, s := range n.s {
		if d := s.Deadline(n.now); !d.IsZero() && d.Before(next) {
			next = d
		}
	}
	for _, p := range n.queue {
		if p.at.Before(next) {
			next = p.at
		}
	}
	if next.Before(n.now) {
		next = n.now
	}
	n.now = next
	// Deliver everything due, in order of arrival.
	n.sortQueue()
	k := 0
	for k < len(n.queue) && !n.queue[k].at.After(n.now) {
		p := n.queue[k]
		n.s[p.to].HandleDatagram(p.data, n.now)
		k++
		// Like a driver, answer before reading on, so that acknowledgements
		// keep up with bursts longer than the ack vector.
		n.service(p.to)
	}
	n.queue = n.queue[k:]
	return n.now.Before(limit)
}

// runUntil steps until done returns true; it fails the test after d of
// virtual time, or if the sessions spin without time advancing.
func (n *simNet) runUntil(done func() bool, d time.Duration) {
	n.t.Helper()
	limit := n.now.Add(d)
	same, last := 0, n.now
	for !done() {
		if !n.step(limit) && !done() {
			n.t.Fatalf("not done after %v of virtual time; client %v (%v), server %v (%v)",
				d, n.s[0].State(), n.s[0].Err(), n.s[1].State(), n.s[1].Err())
		}
		if n.now.Equal(last) {
			if same++; same > 10000 {
				n.t.Fatalf("sessions spin at %v", n.now.Sub(simEpoch))
			}
		} else {
			same, last = 0, n.now
		}
	}
}

// runFor advances virtual time by d.
func (n *simNet) runFor(d time.Duration) {
	n.t.Helper()
	end := n.now.Add(d)
	n.runUntil(func() bool { return !n.now.Before(end) }, d+time.Nanosecond)
}

func (n *simNet) sortQueue() {
	slices.SortFunc(n.queue, func(a, b simPacket) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.n - b.n
	})
}
