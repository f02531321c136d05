package relay

import (
	"bytes"
	"cmp"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// simNet drives a Core with simulated clients over a simulated network on a
// virtual clock: every delay is computed from seeded randomness, so a run is
// reproducible bit for bit.
type simNet struct {
	core    *Core
	now     time.Duration
	clients []*simClient
	queue   []delivery // sorted by at, then seq
	seq     int
	rng     *mrand.Rand
	log     *bytes.Buffer // what the core sent and reported, if not nil
	quiet   bool          // log only rare messages and events
	// lateQuiet counts the LateSubmission events quiet left out.
	lateQuiet int
	// onFrame, if set, sees every frame as the relay sends it.
	onFrame func(f *msg.TickFrame)
	// onSubmit, if set, sees every submission as it reaches the relay.
	onSubmit func(id protocol.PlayerID, m *msg.OrderSubmit)
	// onStep, if set, sees every message as it reaches the relay.
	onStep func(id protocol.PlayerID, m msg.Message)
	// onEvent, if set, sees every event the core reports.
	onEvent func(e Event)
	// stallUntil: before it the relay process does not run (the clients
	// and the network do); what reaches it waits in its receive queue.
	stallUntil time.Duration
	// keepalives are when the relay sent a RejoinKeepalive.
	keepalives []time.Duration
}

// relayStalled reports whether the relay process is not running now.
func (n *simNet) relayStalled() bool { return n.now < n.stallUntil }

// simClient is a scripted client: it answers pings, commits and reveals,
// submits at each window's end by its own estimate of the relay clock,
// echoes liveness tokens and reports sync hashes.
type simClient struct {
	id        protocol.PlayerID
	up, down  time.Duration // one-way delays
	jitter    time.Duration // extra delay drawn uniformly in [0, jitter) each way
	hold      time.Duration // extra uplink delay of submissions (a lag switch)
	holdOnly  uint64        // if > 0, hold only the submission of this tick
	holdEvery uint64        // if > 0, hold only the submissions of every holdEvery-th tick
	trueOff   time.Duration // relay clock - client clock
	estOff    time.Duration // the client's estimate of trueOff (MatchTiming)
	submitOff time.Duration
	deadline  time.Duration // the relay's, as TimingFeedback last said
	// follow makes the client move its submit offset on TimingFeedback,
	// within one window, as the lockstep client does; transcripts' clients
	// keep the one MatchTiming gave.
	follow   bool
	silent   bool // sends nothing
	noEcho   bool // keeps submitting but echoes no token (frozen)
	noReveal bool
	// backedUp: the relay's sends to the client back up (its reliable
	// stream is full), and the relay calls Leave between Ready and
	// Advance, as server does.
	backedUp  bool
	badHashAt uint64    // report a wrong hash for sync ticks at or after this, if > 0
	tree      *walkTree // a state tree the client hashes and answers the desync walk with
	playing   bool
	nextTick  uint64 // next window to submit
	lastTick  uint64
	lastToken uint32
	frameAt   time.Duration // when frame lastTick arrived
	// echoLag, when set, makes the client echo the frame echoLag ticks
	// older than its newest (see TestFairnessUnderJitter).
	echoLag   int
	frames    map[uint64]echoable
	haveFrame bool
	pending   []issued         // orders not yet sent, by issue time
	learned   []learnedRemoval // removals the client was told of
	contrib   [32]byte
	nonce     [16]byte
	rejoin    simRejoin
}

type delivery struct {
	at      time.Duration
	seq     int
	toRelay bool
	client  *simClient
	m       msg.Message // to the relay; a private copy
	frame   frameCopy   // to a client
}

// frameCopy is what a client keeps of a relay message (the core reuses its
// messages after Advance).
type frameCopy struct {
	kind      wireKind
	tick      uint64
	token     uint32
	flags     uint8
	seq       uint16
	relaySend uint64
	clockOff  int64
	submitOff int32
	removals  []msg.Removal // a frame's schedule, or a PlayerRemoved notice
	total     uint16        // a snapshot chunk's count (seq is its index)
	data      []byte        // a snapshot chunk's bytes
	hash      uint64        // an agreed snapshot hash
	digest    [32]byte      // a snapshot digest
	feedback  msg.TimingFeedback
	depth     uint8 // a MerkleQuery's node
	index     uint32
}

// learnedRemoval is a removal a client was told of, and how it first
// heard.
type learnedRemoval struct {
	msg.Removal
	at  time.Duration
	how string
}

type wireKind uint8

const (
	kFrame wireKind = iota + 1
	kPing
	kTiming
	kCommitments
	kResult
	kRemoved
	kDebugRequest
	kMerkleQuery
	kOther
	kRejoinStart
	kSnapshotRequest
	kChunk
	kSnapshotHash
	kDigestRequest
	kSnapshotDigest
	kFeedback
)

func newSimNet(cfg Config, ids []protocol.PlayerID, seed uint64) (*simNet, error) {
	if cfg.Rand == nil {
		cfg.Rand = newSeededReader(seed)
	}
	c, err := New(cfg, ids, 0)
	if err != nil {
		return nil, err
	}
	n := &simNet{core: c, rng: mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	for _, id := range ids {
		cl := &simClient{id: id, up: 20 * time.Millisecond, down: 20 * time.Millisecond}
		cl.contrib[0], cl.nonce[0] = byte(id), byte(id)*3
		n.clients = append(n.clients, cl)
	}
	return n, nil
}

// seededReader is a deterministic io.Reader for Config.Rand.
type seededReader struct{ r *mrand.ChaCha8 }

func newSeededReader(seed uint64) *seededReader {
	var key [32]byte
	for i := range 4 {
		key[i*8] = byte(seed >> (8 * i))
	}
	return &seededReader{mrand.NewChaCha8(key)}
}

func (s *seededReader) Read(p []byte) (int, error) { return s.r.Read(p) }

func (n *simNet) client(id protocol.PlayerID) *simClient {
	for _, c := range n.clients {
		if c.id == id {
			return c
		}
	}
	return nil
}

func (n *simNet) delay(base, jitter time.Duration) time.Duration {
	if jitter <= 0 {
		return base
	}
	return base + time.Duration(n.rng.Int64N(int64(jitter)))
}

func (n *simNet) push(d delivery) {
	n.seq++
	d.seq = n.seq
	i, _ := slices.BinarySearchFunc(n.queue, d, func(a, b delivery) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return a.seq - b.seq
	})
	n.queue = slices.Insert(n.queue, i, d)
}

// toRelay sends m from c, leaving the client at now.
func (n *simNet) toRelay(c *simClient, m msg.Message, extra time.Duration) {
	if c.silent {
		return
	}
	n.push(delivery{at: n.now + n.delay(c.up, c.jitter) + extra, toRelay: true, client: c, m: m})
}

// clientClock is c's own clock at relay time t.
func (c *simClient) clientClock(t time.Duration) time.Duration { return t - c.trueOff }

// estimate is c's estimate of the relay clock at relay time t.
func (c *simClient) estimate(t time.Duration) time.Duration { return c.clientClock(t) + c.estOff }

// sendTime is the relay time at which c submits window k: when its
// estimate of the relay clock reaches the window's end less its submit
// offset.
func (n *simNet) sendTime(c *simClient, k uint64) time.Duration {
	end := n.core.timeline.windowStart(int64(k)+1) - c.submitOff
	return end - c.estOff + c.trueOff
}

// echoable is a frame a client may echo: its token and arrival.
type echoable struct {
	token uint32
	at    time.Duration
}

// issued is an order a client issued, at its estimate of relay time.
type issued struct {
	at time.Duration
	o  protocol.TimestampedOrder
}

// issue queues an order c issues at relay time at, stamped with c's
// estimate; it travels in c's first submission sent after that estimate,
// as the lockstep client's does. It returns the window c believes at falls
// in.
func (n *simNet) issue(c *simClient, at time.Duration, o protocol.PlayerOrder) (tick uint64) {
	est := c.estimate(at)
	i, _ := slices.BinarySearchFunc(c.pending, est, func(p issued, t time.Duration) int { return cmp.Compare(p.at, t) })
	c.pending = slices.Insert(c.pending, i, issued{at: est, o: protocol.TimestampedOrder{Player: c.id, Order: o}})
	return uint64(max(est-n.core.timeline.start, 0) / n.core.timeline.interval)
}

// next is the time of the next thing to happen: a delivery, a client
// submission or a core deadline.
func (n *simNet) next() time.Duration {
	t, ok := n.core.NextDeadline()
	if !ok || n.relayStalled() {
		t = 1<<63 - 1
	}
	if n.relayStalled() {
		t = n.stallUntil
	}
	for _, d := range n.queue {
		if d.toRelay {
			t = min(t, max(d.at, n.stallUntil))
		} else {
			t = min(t, d.at)
		}
	}
	for _, c := range n.clients {
		if n.submits(c) {
			t = min(t, n.sendTime(c, c.nextTick))
		}
	}
	return t
}

// runUntil runs the simulation until stop reports true or the clock passes
// limit.
func (n *simNet) runUntil(limit time.Duration, stop func() bool) {
	n.drain() // what New or a hand-made step produced
	for !stop() {
		t := n.next()
		if t > limit {
			n.now = max(n.now, limit)
			n.core.Tick(n.now)
			n.drain()
			return
		}
		n.now = max(n.now, t)
		n.stepOnce()
	}
}

// stepOnce does everything due at n.now.
func (n *simNet) stepOnce() {
	for i := 0; i < len(n.queue) && n.queue[i].at <= n.now; {
		d := n.queue[i]
		if d.toRelay && n.relayStalled() {
			i++ // waits in the relay's receive queue
			continue
		}
		n.queue = slices.Delete(n.queue, i, i+1)
		if d.toRelay {
			if n.onStep != nil {
				n.onStep(d.client.id, d.m)
			}
			if s, ok := d.m.(*msg.OrderSubmit); ok && n.onSubmit != nil {
				n.onSubmit(d.client.id, s)
			}
			if err := n.core.Step(n.now, d.client.id, d.m); err != nil {
				n.logf("error from %d: %v", d.client.id, err)
			}
		} else {
			n.receive(d.client, d.frame)
		}
		n.drain()
	}
	for _, c := range n.clients {
		for n.submits(c) && n.sendTime(c, c.nextTick) <= n.now {
			n.submit(c)
		}
	}
	if !n.relayStalled() {
		n.core.Tick(n.now)
		n.drain()
	}
}

// feedback moves c's submit offset as the lockstep client's does
// (clientState.feedback): earlier by up to 5 ms when late, up to 1 ms later
// when earlier than its target margin needs, within maxOffset.
func (n *simNet) feedback(c *simClient, fb *msg.TimingFeedback) {
	if fb.DeadlineUs > 0 {
		c.deadline = time.Duration(fb.DeadlineUs) * time.Microsecond
	}
	rec := time.Duration(fb.RecommendedOffsetUs) * time.Microsecond
	switch {
	case fb.LateCount > 0:
		c.submitOff += min(max(rec, time.Millisecond), 5*time.Millisecond)
	case rec < 0:
		c.submitOff -= min(-rec, time.Millisecond)
	}
	c.submitOff = min(max(c.submitOff, 0), n.maxOffset(c))
}

// maxOffset bounds c's submit offset as the lockstep client's does: by the
// deadline and to less than a tick window.
func (n *simNet) maxOffset(c *simClient) time.Duration {
	return max(min(c.deadline, n.core.timeline.interval-time.Millisecond), 0)
}

// submits reports whether c submits on its own.
func (n *simNet) submits(c *simClient) bool {
	st, _ := n.core.Player(c.id)
	return c.playing && !c.silent && !c.rejoin.gone && !c.rejoin.rejoining && st.Status != StatusRemoved
}

// submit sends c's submission for its next window.
//
// Submission k goes when c believes window k+1 starts, less its submit
// offset, and claims the window that holds that instant, as the lockstep
// client's does: window k with no offset, an earlier one with an offset
// over a window. It carries the orders c issued before it, each hint the
// issue time within the claimed window (0 for one issued before it).
func (n *simNet) submit(c *simClient) {
	k := c.nextTick
	c.nextTick++
	tl := &n.core.timeline
	sendAt := tl.windowStart(int64(k)+1) - c.submitOff
	claim := tl.windowOf(sendAt - time.Microsecond)
	j := 0
	for j < len(c.pending) && c.pending[j].at <= sendAt {
		j++
	}
	var orders []protocol.TimestampedOrder
	if claim >= 0 {
		ws := tl.windowStart(claim)
		for _, p := range c.pending[:j] {
			o := p.o
			o.SubTickTime = uint32(min(max(p.at-ws, 0), tl.interval-time.Microsecond) / time.Microsecond)
			orders = append(orders, o)
		}
		c.pending = c.pending[j:]
	}
	s := &msg.OrderSubmit{Tick: uint64(max(claim, 0)), SentUs: durUs(c.estimate(n.now)), Orders: orders}
	if c.haveFrame && !c.noEcho {
		s.AckTick, s.Token, s.AckDelayUs = c.lastTick, c.lastToken, uint32(durUs(n.now-c.frameAt))
		if f, ok := c.frames[c.lastTick-uint64(c.echoLag)]; ok && c.echoLag > 0 {
			s.AckTick, s.Token, s.AckDelayUs = c.lastTick-uint64(c.echoLag), f.token, uint32(durUs(n.now-f.at))
		}
	}
	hold := c.hold
	if (c.holdOnly > 0 && c.holdOnly != k) || (c.holdEvery > 0 && k%c.holdEvery != 0) {
		hold = 0
	}
	n.toRelay(c, s, hold)
}

// receive is a client's reaction to a relay message.
func (n *simNet) receive(c *simClient, f frameCopy) {
	switch f.kind {
	case kPing:
		t := durUs(c.clientClock(n.now))
		n.toRelay(c, &msg.CalibrationPong{Seq: f.seq, RelaySendUs: f.relaySend, ClientRecvUs: t, ClientSendUs: t}, 0)
	case kTiming:
		c.estOff = time.Duration(f.clockOff) * time.Microsecond
		c.deadline = time.Duration(f.feedback.DeadlineUs) * time.Microsecond
		c.submitOff = time.Duration(f.submitOff) * time.Microsecond
		if c.follow {
			c.submitOff = min(c.submitOff, n.maxOffset(c))
		}
		n.toRelay(c, &msg.SeedCommit{Commitment: Commitment(c.contrib, c.nonce)}, 0)
	case kFeedback:
		if c.follow {
			n.feedback(c, &f.feedback)
		}
	case kCommitments:
		if !c.noReveal {
			n.toRelay(c, &msg.SeedReveal{Contribution: c.contrib, Nonce: c.nonce}, 0)
		}
	case kResult:
		c.playing = true
	case kRemoved:
		c.learn(f.removals, n.now, "PlayerRemoved")
	case kDebugRequest, kMerkleQuery:
		if c.tree != nil {
			n.answerWalk(c, f)
		}
	case kFrame:
		defer n.donateOnFrame(c, f.tick)
		c.learn(f.removals, n.now, fmt.Sprintf("frame %d", f.tick))
		if c.echoLag > 0 {
			if c.frames == nil {
				c.frames = map[uint64]echoable{}
			}
			c.frames[f.tick] = echoable{f.token, n.now}
			delete(c.frames, f.tick-uint64(4*c.echoLag))
		}
		if !c.haveFrame || f.tick > c.lastTick {
			c.lastTick, c.lastToken, c.frameAt, c.haveFrame = f.tick, f.token, n.now, true
		}
		if f.flags&msg.FlagSyncRequest != 0 && !c.rejoin.rejoining {
			h := simHash(f.tick)
			if c.badHashAt > 0 && f.tick >= c.badHashAt {
				h++
			}
			if c.tree != nil {
				h = c.tree.node(f.tick, 0, 0)
			}
			n.toRelay(c, &msg.SyncHash{Tick: f.tick, Hash: h}, 0)
		}
	default:
		n.receiveRejoin(c, f)
	}
}

// learn records removals c had not heard of.
func (c *simClient) learn(rs []msg.Removal, at time.Duration, how string) {
	for _, r := range rs {
		if !slices.ContainsFunc(c.learned, func(l learnedRemoval) bool { return l.Removal == r }) {
			c.learned = append(c.learned, learnedRemoval{r, at, how})
		}
	}
}

// drain delivers the core's output to the clients, logs it and advances,
// until the core has nothing more.
func (n *simNet) drain() {
	for n.core.HasReady() {
		n.drainReady()
	}
}

// drainReady handles one Ready.
func (n *simNet) drainReady() {
	rd := n.core.Ready()
	for _, e := range rd.Messages {
		if f, ok := e.Msg.(*msg.TickFrame); ok && n.onFrame != nil {
			n.onFrame(f)
		}
		n.logMsg(e)
		if _, ok := e.Msg.(*msg.RejoinKeepalive); ok {
			n.keepalives = append(n.keepalives, n.now)
		}
		fc := copyFrame(e.Msg)
		for _, c := range n.clients {
			if (!e.Broadcast && e.To != c.id) || c.rejoin.gone {
				continue
			}
			st, _ := n.core.Player(c.id)
			if st.Status == StatusRemoved && fc.kind != kOther && fc.kind != kRemoved {
				continue
			}
			if c.backedUp {
				if st.Status == StatusActive {
					n.logf("relay: the send to %d backs up; Leave(%d) before Advance", c.id, c.id)
				}
				n.core.Leave(n.now, c.id)
				continue
			}
			n.push(delivery{at: n.now + n.delay(c.down, c.jitter), client: c, frame: fc})
		}
	}
	for _, ev := range rd.Events {
		if n.onEvent != nil {
			n.onEvent(ev)
		}
		if _, agreed := ev.(SyncAgreed); agreed {
			continue // transcripts show disagreements, not every agreement
		}
		if _, late := ev.(LateSubmission); late && n.quiet {
			n.lateQuiet++
			continue
		}
		n.logf("%s", fmtEvent(ev))
	}
	n.core.Advance()
}

func copyFrame(m msg.Message) frameCopy {
	if fc, ok := copyRejoin(m); ok {
		return fc
	}
	switch m := m.(type) {
	case *msg.TickFrame:
		return frameCopy{kind: kFrame, tick: m.Tick, token: m.Token, flags: m.Flags, removals: slices.Clone(m.Removals)}
	case *msg.CalibrationPing:
		return frameCopy{kind: kPing, seq: m.Seq, relaySend: m.RelaySendUs}
	case *msg.MatchTiming:
		return frameCopy{kind: kTiming, clockOff: m.ClockOffsetUs, submitOff: m.SubmitOffsetUs, feedback: msg.TimingFeedback{DeadlineUs: m.DeadlineUs}}
	case *msg.TimingFeedback:
		return frameCopy{kind: kFeedback, feedback: *m}
	case *msg.SeedCommitments:
		return frameCopy{kind: kCommitments}
	case *msg.SeedResult:
		return frameCopy{kind: kResult}
	case *msg.PlayerRemoved:
		return frameCopy{kind: kRemoved, removals: []msg.Removal{m.Removal}}
	case *msg.DesyncDebugRequest:
		return frameCopy{kind: kDebugRequest, tick: m.Tick}
	case *msg.MerkleQuery:
		return frameCopy{kind: kMerkleQuery, tick: m.Tick, depth: m.Depth, index: m.Index}
	}
	return frameCopy{kind: kOther}
}

func (n *simNet) logf(format string, args ...any) {
	if n.log != nil {
		fmt.Fprintf(n.log, "%s ", fmtTime(n.now))
		fmt.Fprintf(n.log, format, args...)
		n.log.WriteByte('\n')
	}
}

func (n *simNet) logMsg(e Envelope) {
	if n.log == nil {
		return
	}
	switch e.Msg.(type) {
	case *msg.CalibrationPing:
		return // many and regular; the calibration result says enough
	case *msg.TickFrame, *msg.TimingFeedback, *msg.SeedCommitments:
		if n.quiet {
			return
		}
	}
	to := "all"
	if !e.Broadcast {
		to = fmt.Sprint(e.To)
	}
	n.logf("-> %s %s", to, fmtMsg(e.Msg))
}

func fmtTime(d time.Duration) string {
	return fmt.Sprintf("%8.3fms", float64(d)/float64(time.Millisecond))
}

func fmtOrders(os []protocol.TimestampedOrder) string {
	var b strings.Builder
	for i, o := range os {
		if i > 0 {
			b.WriteByte(' ')
		}
		if _, idle := o.Order.(protocol.Idle); idle {
			fmt.Fprintf(&b, "%d:Idle", o.Player)
		} else {
			fmt.Fprintf(&b, "%d:%v@%d", o.Player, o.Order.OrderKind(), o.SubTickTime)
		}
	}
	return b.String()
}

func fmtMsg(m msg.Message) string {
	if s, ok := fmtRejoin(m); ok {
		return s
	}
	switch m := m.(type) {
	case *msg.TickFrame:
		s := fmt.Sprintf("TickFrame %d ra=%d", m.Tick, m.RunAhead)
		if m.Flags&msg.FlagSyncRequest != 0 {
			s += " sync"
		}
		for _, r := range m.Removals {
			s += fmt.Sprintf(" remove(%d@%d %v)", r.Player, r.AtTick, r.Reason)
		}
		return s + " [" + fmtOrders(m.Orders) + "]"
	case *msg.TimingFeedback:
		return fmt.Sprintf("TimingFeedback avg=%dus late=%d jitter=%dus rec=%dus", m.AvgArrivalDeltaUs, m.LateCount, m.JitterUs, m.RecommendedOffsetUs)
	case *msg.MatchTiming:
		return fmt.Sprintf("MatchTiming tick=%dus ra=%d deadline=%dus offset=%dus submit=%dus", m.TickIntervalUs, m.RunAhead, m.DeadlineUs, m.ClockOffsetUs, m.SubmitOffsetUs)
	case *msg.PlayerRemoved:
		return fmt.Sprintf("PlayerRemoved %d at=%d %v", m.Player, m.AtTick, m.Reason)
	case *msg.DesyncDetected:
		return fmt.Sprintf("DesyncDetected tick=%d", m.Tick)
	case *msg.SeedCommitments:
		ids := make([]string, len(m.Commitments))
		for i, c := range m.Commitments {
			ids[i] = fmt.Sprint(c.Player)
		}
		return "SeedCommitments [" + strings.Join(ids, " ") + "]"
	case *msg.SeedResult:
		return fmt.Sprintf("SeedResult seed=%#x start=%dus", m.Seed, m.StartUs)
	case *msg.DebugLevel:
		return fmt.Sprintf("DebugLevel %d", m.Level)
	case *msg.DesyncDebugRequest:
		return fmt.Sprintf("DesyncDebugRequest tick=%d level=%d", m.Tick, m.Level)
	case *msg.MerkleQuery:
		return fmt.Sprintf("MerkleQuery tick=%d node=%d/%d", m.Tick, m.Depth, m.Index)
	case *msg.DesyncReport:
		return fmt.Sprintf("DesyncReport tick=%d (%d bytes of JSON)", m.Tick, len(m.JSON))
	}
	return fmt.Sprintf("%T %+v", m, m)
}

func fmtEvent(e Event) string {
	if s, ok := fmtRejoinEvent(e); ok {
		return s
	}
	switch e := e.(type) {
	case CalibrationDone:
		c := e.Calibration
		s := fmt.Sprintf("event CalibrationDone deadline=%v run-ahead=%d", c.InitialTickDeadline, c.SharedInitialRunAhead)
		for _, p := range c.PerPlayer {
			s += fmt.Sprintf("\n    player %d: samples=%d rtt=%v jitter=%v one-way=%v p95=%v submit=%v",
				p.Player, p.Samples, p.MedianRTT, p.Jitter, p.EstimatedOneWay, p.OneWayP95, p.SubmitOffset)
		}
		return s
	case SeedAgreed:
		return fmt.Sprintf("event SeedAgreed seed=%#x start=%v", e.Seed, e.Start)
	case LateSubmission:
		return fmt.Sprintf("event LateSubmission p=%d tick=%d by=%v", e.Player, e.Tick, e.LateBy)
	case Strike:
		return fmt.Sprintf("event Strike p=%d strikes=%d %s", e.Player, e.Strikes, e.Reason)
	case Suspicious:
		return fmt.Sprintf("event Suspicious p=%d tick=%d claims=%d total=%d", e.Player, e.Tick, e.Claims, e.Total)
	case OrdersDropped:
		return fmt.Sprintf("event OrdersDropped p=%d tick=%d %v x%d", e.Player, e.Tick, e.Reason, e.Count)
	case RemovalScheduled:
		return fmt.Sprintf("event RemovalScheduled p=%d at=%d %v", e.Player, e.AtTick, e.Reason)
	case PlayerRemoved:
		return fmt.Sprintf("event PlayerRemoved p=%d at=%d %v", e.Player, e.AtTick, e.Reason)
	case QosAdjustmentEvent:
		return fmt.Sprintf("event QosAdjustment tick=%d deadline %v->%v run-ahead %d->%d ewma=%dbps %v",
			e.Tick, e.OldDeadline, e.NewDeadline, e.OldRunAhead, e.NewRunAhead, e.LateRateBpsEWMA, e.Reason)
	case HostStall:
		return fmt.Sprintf("event HostStall at=%v for=%v lag=%v", e.At.Round(time.Microsecond), e.Duration.Round(time.Microsecond), e.Lag.Round(time.Microsecond))
	case DesyncDiagnosed:
		return "event DesyncDiagnosed\n" + strings.TrimSpace(string(e.JSON))
	case Desync:
		s := fmt.Sprintf("event Desync tick=%d", e.Tick)
		for _, h := range e.Hashes {
			s += fmt.Sprintf(" %d:%#x", h.Player, h.Hash)
		}
		return s
	}
	return fmt.Sprintf("event %T %+v", e, e)
}
