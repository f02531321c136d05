package lockstep

import (
	"container/heap"
	"errors"
	"log/slog"
	mrand "math/rand/v2"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/join"
)

// vnet plays a match between client cores and the real relay.Core over a
// simulated network, in virtual time: the relay's clock is the true time,
// each client reads its own clock (offset, rate error, jumps), every
// message is encoded and decoded with the real codec, and every delay is
// drawn from a seeded source, so a run is reproducible bit for bit.
type vnet struct {
	relay   *relay.Core
	codec   msg.Codec
	now     time.Duration // true time, the relay's clock
	clients []*vclient
	queue   vqueue
	seq     int
	rng     *mrand.Rand
	qos     []relay.QosAdjustmentEvent
}

// vclock is a client's clock: base + t·(1 + ppm/10⁶), plus every jump
// whose time has come.
type vclock struct {
	base  time.Duration
	ppm   int64
	jumps []vjump
}

type vjump struct{ at, by time.Duration }

func (k *vclock) read(t time.Duration) time.Duration {
	c := k.base + t + time.Duration(int64(t)*k.ppm/1e6)
	for _, j := range k.jumps {
		if t >= j.at {
			c += j.by
		}
	}
	return c
}

// wake is the earliest true time not before now at which the clock
// reads at least c, or the next jump, whichever comes first.
func (k *vclock) wake(now, c time.Duration) time.Duration {
	jumped := k.read(now) - k.base - now - time.Duration(int64(now)*k.ppm/1e6)
	t := time.Duration((int64(c-k.base-jumped)*1e6 + 1e6 + k.ppm - 1) / (1e6 + k.ppm))
	for _, j := range k.jumps {
		if j.at > now && j.at <= t {
			return j.at
		}
	}
	for k.read(t) < c { // rounding: a nanosecond or two
		t++
	}
	return max(t, now)
}

// vclient is one player: a clientCore with its clock and path, and what
// the relay did with its submissions.
type vclient struct {
	id                 protocol.PlayerID
	core               *clientCore
	clock              vclock
	up, down, jitter   time.Duration
	lastUp, lastDown   time.Duration // the lanes are ordered: no overtaking
	srtt               time.Duration
	onTime             map[uint64]bool // ticks with an on-time submission
	late, rejected     []uint64        // ticks of late and refused submissions
	strikes, removals  int
	offErr             []offsetSample
	submitted, applied int
}

// offsetSample is the client's offset error when a frame arrived during
// tick window tick.
type offsetSample struct {
	tick uint64
	err  time.Duration
}

type vdelivery struct {
	at, sent time.Duration
	seq      int
	toRelay  bool
	client   *vclient
	data     []byte
}

func newVnet(seed uint64, clients []*vclient) (*vnet, error) {
	ids := make([]protocol.PlayerID, len(clients))
	for i, c := range clients {
		c.id = protocol.PlayerID(i + 1)
		ids[i] = c.id
	}
	var key [32]byte
	key[0] = byte(seed)
	rc, err := relay.New(relay.Config{Rand: mrand.NewChaCha8(key)}, ids, 0)
	if err != nil {
		return nil, err
	}
	n := &vnet{relay: rc, clients: clients, rng: mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	cfg := RelayClientConfig{MetricsInterval: DefaultMetricsInterval, MaxQueuedTicks: DefaultMaxQueuedTicks}
	for _, c := range clients {
		var contribution [32]byte
		var nonce [16]byte
		contribution[0], nonce[0] = byte(c.id), byte(c.id)*3
		acc := join.Seat{Player: c.id, RoomSize: len(clients), TickRate: relay.DefaultTickRate}
		c.core = newClientCore(cfg, slog.New(slog.DiscardHandler), acc, contribution, nonce)
		c.srtt = c.up + c.down + c.jitter
		c.onTime = map[uint64]bool{}
	}
	return n, nil
}

// delay is a one-way delay: base plus up to jitter, drawn uniformly.
func (n *vnet) delay(base, jitter time.Duration) time.Duration {
	return base + time.Duration(n.rng.Int64N(int64(jitter)+1))
}

func (n *vnet) push(d vdelivery) {
	n.seq++
	d.seq = n.seq
	heap.Push(&n.queue, d)
}

// vqueue is the deliveries in flight, a heap by time, then sending order.
type vqueue []vdelivery

func (q vqueue) Len() int { return len(q) }
func (q vqueue) Less(i, j int) bool {
	return q[i].at < q[j].at || (q[i].at == q[j].at && q[i].seq < q[j].seq)
}
func (q vqueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *vqueue) Push(x any)   { *q = append(*q, x.(vdelivery)) }
func (q *vqueue) Pop() any {
	old := *q
	d := old[len(old)-1]
	*q = old[:len(old)-1]
	return d
}

// next is the true time of the next thing to happen.
func (n *vnet) next() time.Duration {
	t := time.Duration(1<<63 - 1)
	if d, ok := n.relay.NextDeadline(); ok {
		t = d
	}
	if len(n.queue) > 0 {
		t = min(t, n.queue[0].at)
	}
	for _, c := range n.clients {
		if d, ok := c.core.NextDeadline(); ok {
			t = min(t, c.clock.wake(n.now, d))
		}
	}
	return t
}

// run plays until true time until.
func (n *vnet) run(until time.Duration) error {
	n.drainRelay()
	for {
		t := n.next()
		if t > until {
			return nil
		}
		n.now = max(n.now, t)
		if err := n.step(); err != nil {
			return err
		}
	}
}

// step does everything due now.
func (n *vnet) step() error {
	for len(n.queue) > 0 && n.queue[0].at <= n.now {
		d := heap.Pop(&n.queue).(vdelivery)
		if d.toRelay {
			if err := n.toRelay(d); err != nil {
				return err
			}
		} else if err := n.toClient(d); err != nil {
			return err
		}
	}
	n.relay.Tick(n.now)
	n.drainRelay()
	for _, c := range n.clients {
		c.core.Tick(c.clock.read(n.now))
		n.drainClient(c)
	}
	return nil
}

func (n *vnet) toRelay(d vdelivery) error {
	m, err := n.codec.Decode(d.data)
	if err != nil {
		return err
	}
	err = n.relay.Step(n.now, d.client.id, m)
	if s, ok := m.(*msg.OrderSubmit); ok {
		switch {
		case err != nil:
			d.client.rejected = append(d.client.rejected, s.Tick)
		case s.Tick >= n.relay.NextTick():
			d.client.onTime[s.Tick] = true
		}
	} else if err != nil && !errors.Is(err, relay.ErrPhase) && !errors.Is(err, relay.ErrRemoved) {
		return err
	}
	n.drainRelay()
	return nil
}

func (n *vnet) toClient(d vdelivery) error {
	c := d.client
	m, err := n.codec.Decode(d.data)
	if err != nil {
		return err
	}
	now := c.clock.read(n.now)
	_, frame := m.(*msg.TickFrame)
	if frame {
		// The path's RTT as the transport smooths it (gain 1/8).
		c.srtt += (n.now - d.sent + n.delay(c.up, c.jitter) - c.srtt) / 8
		c.core.ObserveRTT(c.srtt)
	}
	c.core.Step(now, m)
	if frame {
		window := uint64(max(relay.WindowOf(n.relay.Start(), n.relay.TickInterval(), n.now), 0))
		c.offErr = append(c.offErr, offsetSample{tick: window, err: c.core.st.offset - (n.now - c.core.now)})
		for {
			t, ok := c.core.poll(now)
			if !ok {
				break
			}
			c.applied++
			c.core.reportHash(t.Tick, t.Tick*0x9e3779b97f4a7c15, now)
			if t.Tick%5 == uint64(c.id)%5 {
				c.core.submit(protocol.TimestampedOrder{Order: protocol.Sell{Building: protocol.EntityID(t.Tick)}}, now)
				c.submitted++
			}
		}
	}
	n.drainClient(c)
	return nil
}

// drainRelay sends the relay's output through the network.
func (n *vnet) drainRelay() {
	if !n.relay.HasReady() {
		return
	}
	rd := n.relay.Ready()
	for _, e := range rd.Messages {
		b, err := n.codec.Append(nil, e.Msg)
		if err != nil {
			panic(err)
		}
		for _, c := range n.clients {
			if st, _ := n.relay.Player(c.id); st.Status == relay.StatusRemoved || (!e.Broadcast && e.To != c.id) {
				continue
			}
			c.lastDown = max(c.lastDown, n.now+n.delay(c.down, c.jitter))
			n.push(vdelivery{at: c.lastDown, sent: n.now, client: c, data: b})
		}
	}
	for _, ev := range rd.Events {
		switch ev := ev.(type) {
		case relay.LateSubmission:
			n.clients[ev.Player-1].late = append(n.clients[ev.Player-1].late, ev.Tick)
		case relay.Strike:
			n.clients[ev.Player-1].strikes++
		case relay.QosAdjustmentEvent:
			n.qos = append(n.qos, ev)
		case relay.RemovalScheduled:
			n.clients[ev.Player-1].removals++
		}
	}
	n.relay.Advance()
}

// drainClient sends a client core's output through the network.
func (n *vnet) drainClient(c *vclient) {
	for c.core.HasReady() {
		for _, m := range c.core.Ready().Messages {
			b, err := n.codec.Append(nil, m)
			if err != nil {
				c.core.Unsent(m, true)
				continue
			}
			c.lastUp = max(c.lastUp, n.now+n.delay(c.up, c.jitter))
			n.push(vdelivery{at: c.lastUp, sent: n.now, toRelay: true, client: c, data: b})
		}
		c.core.Advance()
	}
}
