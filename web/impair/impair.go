package impair

import (
	"slices"
	"sync"
	"time"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/predict"
)

// epoch anchors the Network's durations on netsim's time.Time.
var epoch = time.Unix(0, 0)

type held struct {
	at   time.Duration
	lane predict.Lane
	msg  []byte
}

// Network is a predict.Network behind an impaired path. Its methods are
// safe to call from several goroutines (the page's slider sets the link
// while the game loop plays).
type Network struct {
	inner    predict.Network
	mu       sync.Mutex
	up, down *netsim.Path
	link     netsim.Link
	out, in  []held
	dropped  uint64
}

// New wraps inner; seed chooses the losses.
func New(inner predict.Network, seed uint64) *Network {
	return &Network{inner: inner, up: netsim.NewPath(netsim.Link{}, seed, 1), down: netsim.NewPath(netsim.Link{}, seed, 2)}
}

// SetLink sets the impairment of each direction (the one-way latency and
// loss of both); the zero Link removes it.
func (n *Network) SetLink(l netsim.Link) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.link = l
	n.up.SetLink(l)
	n.down.SetLink(l)
}

// Dropped is the number of messages the path dropped, both ways.
func (n *Network) Dropped() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.dropped
}

// admit decides a message's fate on p: false if dropped, else when it
// arrives. Reliable messages are only delayed.
func (n *Network) admit(p *netsim.Path, now time.Duration, size int, lossy bool) (time.Duration, bool) {
	if !lossy {
		return now + n.link.Latency, true
	}
	d := p.Decide(epoch.Add(now), size)
	if d.Drop != netsim.Kept {
		n.dropped++
		return 0, false
	}
	return d.At.Sub(epoch), true
}

// hold queues m in q in order of arrival; a message never overtakes one
// held before it on the same path.
func hold(q []held, h held) []held {
	if len(q) > 0 {
		h.at = max(h.at, q[len(q)-1].at)
	}
	return append(q, h)
}

// due removes and returns the messages of q arrived by now.
func due(q []held, now time.Duration) (ready, rest []held) {
	i := 0
	for i < len(q) && q[i].at <= now {
		i++
	}
	return slices.Clone(q[:i]), slices.Delete(q, 0, i)
}

// Send holds msg on the upward path and sends what has arrived.
func (n *Network) Send(now time.Duration, lane predict.Lane, msg []byte) error {
	n.mu.Lock()
	if at, ok := n.admit(n.up, now, len(msg), lane != predict.LaneReliable); ok {
		n.out = hold(n.out, held{at: at, lane: lane, msg: slices.Clone(msg)})
	}
	n.mu.Unlock()
	return n.flush(now)
}

func (n *Network) flush(now time.Duration) error {
	n.mu.Lock()
	var ready []held
	ready, n.out = due(n.out, now)
	n.mu.Unlock()
	for _, h := range ready {
		if err := n.inner.Send(now, h.lane, h.msg); err != nil {
			return err
		}
	}
	return nil
}

// reliable reports whether a message travels on the reliable lane.
func reliable(msg []byte) bool {
	t, err := predict.TypeOf(msg)
	return err == nil && (t == predict.TypeHello || t == predict.TypeEvent)
}

// Poll takes what the inner network delivered onto the downward path and
// delivers what has arrived by now.
func (n *Network) Poll(now time.Duration, deliver func(msg []byte)) error {
	if err := n.flush(now); err != nil {
		return err
	}
	err := n.inner.Poll(now, func(msg []byte) {
		n.mu.Lock()
		defer n.mu.Unlock()
		if at, ok := n.admit(n.down, now, len(msg), !reliable(msg)); ok {
			n.in = hold(n.in, held{at: at, msg: slices.Clone(msg)})
		}
	})
	n.mu.Lock()
	var ready []held
	ready, n.in = due(n.in, now)
	n.mu.Unlock()
	for _, h := range ready {
		deliver(h.msg)
	}
	return err
}

// Close closes the inner network.
func (n *Network) Close() error { return n.inner.Close() }

var _ predict.Network = (*Network)(nil)
