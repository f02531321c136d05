package transportbench

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/transport"
)

// The congestion sweep runs tickwire's Sessions in virtual time over
// netsim Paths (pure: no sockets, goroutines or clock), so that every
// cell is deterministic and a whole grid of paths takes seconds: the
// model-based controller beside the fixed window on each path and
// workload, with the bounds of the congestion issue.

// SweepPath is one cell's path, the same in both directions except the
// bottleneck, which only the client's direction crosses.
type SweepPath struct {
	Delay  time.Duration // one way
	Jitter time.Duration // uniform ±Jitter, drawn per packet, so it reorders
	Loss   float64
	// Bottleneck is the client's link rate in bytes per second, with a
	// 50 ms queue; 0 means none.
	Bottleneck int64
	// Bursty releases packets in bursts every BurstyInterval in both
	// directions (acknowledgements arrive aggregated).
	Bursty bool
}

// BurstyInterval is the delivery grid of a bursty SweepPath.
const BurstyInterval = 4 * time.Millisecond

func (p SweepPath) String() string {
	s := fmt.Sprintf("%v±%v %g%%", p.Delay, p.Jitter, 100*p.Loss)
	if p.Bottleneck > 0 {
		s += fmt.Sprintf(" %gMbit/s", float64(p.Bottleneck)*8/1e6)
	}
	if p.Bursty {
		s += " bursty"
	}
	return s
}

// MinRTT is the path's smallest round trip.
func (p SweepPath) MinRTT() time.Duration { return 2 * max(p.Delay-p.Jitter, 0) }

func (p SweepPath) link() netsim.Link {
	l := netsim.Link{Latency: p.Delay, Jitter: p.Jitter, JitterReorders: true, Loss: p.Loss}
	if p.Bursty {
		l.DeliveryInterval = BurstyInterval
	}
	return l
}

// SweepWorkload is what a cell's flows send.
type SweepWorkload uint8

const (
	// SweepStream: 128-byte reliable-ordered messages at 500/s for 10 s,
	// client to server (application-limited).
	SweepStream SweepWorkload = iota
	// SweepGame: 32-byte inputs at 60 Hz from the client and 1,000-byte
	// snapshots at 20 Hz from the server, both reliable-ordered, for 10 s.
	SweepGame
	// SweepFile: one 8 MiB reliable message; through a bottleneck, bulk
	// data instead, whose goodput and queue are measured for 10 s after a
	// warm-up.
	SweepFile
)

func (w SweepWorkload) String() string {
	return [...]string{"stream", "game", "8MiB"}[w]
}

// SweepResult is one run of a cell.
type SweepResult struct {
	Path       SweepPath
	Workload   SweepWorkload
	Congestion transport.CongestionControl
	// P99 is the message latency p99 (stream, game).
	P99 time.Duration
	// Time is the transfer's duration (8 MiB without a bottleneck).
	Time time.Duration
	// Goodput is the bulk data delivered per second, and QueueP99 the
	// bottleneck's queueing delay p99 (8 MiB through a bottleneck).
	Goodput  float64
	QueueP99 time.Duration
}

// sweepPacket is a datagram on its way.
type sweepPacket struct {
	at   time.Time
	n    int
	to   int
	data []byte
}

type sweepQueue []sweepPacket

func (q sweepQueue) Len() int { return len(q) }
func (q sweepQueue) Less(i, j int) bool {
	if c := q[i].at.Compare(q[j].at); c != 0 {
		return c < 0
	}
	return q[i].n < q[j].n
}
func (q sweepQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *sweepQueue) Push(x any)   { *q = append(*q, x.(sweepPacket)) }
func (q *sweepQueue) Pop() any {
	old := *q
	p := old[len(old)-1]
	*q = old[:len(old)-1]
	return p
}

// sweepSim is one connection in virtual time: s[0] the client, s[1] the
// server; side i's datagrams cross queue[i] (a bandwidth queue, or nil)
// then path[i].
type sweepSim struct {
	now    time.Time
	s      [2]*transport.Session
	queue  [2]*netsim.Path
	path   [2]*netsim.Path
	events sweepQueue
	n      int
	buf    []byte
	// queued collects the bottleneck's queueing delay from warm on.
	queued []time.Duration
	warm   time.Time
	// feed runs before the sessions are serviced; next is when it wants
	// to run again (zero: no schedule).
	feed    func(now time.Time)
	next    time.Time
	receive func(side int, m transport.Message, now time.Time)
}

var sweepEpoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// errSweepStuck reports a cell that did not finish in its virtual time.
var errSweepStuck = errors.New("transportbench: sweep cell did not finish")

func newSweepSim(cfg transport.Config, p SweepPath, seed uint64) (*sweepSim, error) {
	m := &sweepSim{now: sweepEpoch}
	for i := range 2 {
		m.path[i] = netsim.NewPath(p.link(), seed, uint64(i))
	}
	if p.Bottleneck > 0 {
		m.queue[0] = netsim.NewPath(netsim.Link{BandwidthBps: p.Bottleneck, QueueLimit: int(p.Bottleneck / 20)}, seed, 2)
	}
	var err error
	if m.s[0], err = transport.NewSession(cfg, transport.SessionParams{Client: true, ConnID: 7, InitialSeq: 1000}, m.now); err != nil {
		return nil, err
	}
	if m.s[1], err = transport.NewSession(cfg, transport.SessionParams{ConnID: 7, InitialSeq: 5000, Token: 42}, m.now); err != nil {
		return nil, err
	}
	return m, m.runUntil(func() bool {
		return m.s[0].State() == transport.StateConnected && m.s[1].State() == transport.StateConnected
	}, 10*time.Second)
}

func (m *sweepSim) service(i int) {
	s := m.s[i]
	if d := s.Deadline(m.now); !d.IsZero() && !d.After(m.now) {
		s.HandleTimeout(m.now)
	}
	for {
		var ok bool
		if m.buf, ok = s.AppendDatagram(m.buf[:0], m.now); !ok {
			break
		}
		depart := m.now
		if q := m.queue[i]; q != nil {
			d := q.Decide(m.now, len(m.buf))
			if d.Drop != netsim.Kept {
				continue
			}
			if depart = d.At; !m.now.Before(m.warm) {
				m.queued = append(m.queued, depart.Sub(m.now))
			}
		}
		d := m.path[i].Decide(depart, len(m.buf))
		if d.Drop != netsim.Kept {
			continue
		}
		m.push(d.At, 1-i)
		if !d.DupAt.IsZero() {
			m.push(d.DupAt, 1-i)
		}
	}
	for {
		msg, ok := s.Receive()
		if !ok {
			break
		}
		if m.receive != nil {
			m.receive(i, msg, m.now)
		}
	}
}

func (m *sweepSim) push(at time.Time, to int) {
	m.n++
	heap.Push(&m.events, sweepPacket{at: at, n: m.n, to: to, data: slices.Clone(m.buf)})
}

// runUntil advances virtual time event by event until done, or fails
// after d.
func (m *sweepSim) runUntil(done func() bool, d time.Duration) error {
	limit := m.now.Add(d)
	for !done() {
		if !m.now.Before(limit) {
			return fmt.Errorf("%w after %v", errSweepStuck, d)
		}
		if m.feed != nil && !m.next.IsZero() && !m.now.Before(m.next) {
			m.feed(m.now)
		}
		m.service(0)
		m.service(1)
		next := limit
		for i := range 2 {
			if t := m.s[i].Deadline(m.now); !t.IsZero() && t.Before(next) {
				next = t
			}
		}
		if !m.next.IsZero() && m.next.Before(next) {
			next = m.next
		}
		if len(m.events) > 0 && m.events[0].at.Before(next) {
			next = m.events[0].at
		}
		m.now = later(m.now, next)
		for len(m.events) > 0 && !m.events[0].at.After(m.now) {
			// Each datagram is handled, and its receiver serviced, on its
			// own, as a socket reader would: a receiver that took a whole
			// burst before answering would acknowledge only its end.
			p := heap.Pop(&m.events).(sweepPacket)
			m.s[p.to].HandleDatagram(p.data, m.now)
			m.service(p.to)
		}
	}
	return nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// sweepConfig has the sweep's channels: 1 reliable-ordered Normal for the
// client's data, 2 for the server's.
func sweepConfig(cc transport.CongestionControl) transport.Config {
	return transport.Config{Channels: []transport.ChannelConfig{
		{ID: 1, Reliability: transport.ReliableOrdered, AllowFragmentation: true, MaxUnackedBytes: 16 << 20},
		{ID: 2, Reliability: transport.ReliableOrdered, AllowFragmentation: true},
	}, CongestionControl: cc, MaxMessageSize: 16 << 20}
}

// RunSweepCell runs one workload on one path with one controller.
func RunSweepCell(p SweepPath, w SweepWorkload, cc transport.CongestionControl, seed uint64) (SweepResult, error) {
	r := SweepResult{Path: p, Workload: w, Congestion: cc}
	m, err := newSweepSim(sweepConfig(cc), p, seed)
	if err != nil {
		return r, err
	}
	switch {
	case w == SweepFile && p.Bottleneck > 0:
		err = m.bulk(&r, p.MinRTT())
	case w == SweepFile:
		err = m.file(&r)
	default:
		err = m.messages(&r, w)
	}
	return r, err
}

// messages runs the stream or the game for 10 s and measures every
// message's latency, from the first on.
func (m *sweepSim) messages(r *SweepResult, w SweepWorkload) error {
	type series struct {
		side, size int
		gap        time.Duration
		sent       int
	}
	all := []*series{{0, 128, 2 * time.Millisecond, 0}}
	if w == SweepGame {
		all = []*series{{0, 32, time.Second / 60, 0}, {1, 1000, time.Second / 20, 0}}
	}
	const d = 10 * time.Second
	start := m.now
	end := start.Add(d)
	var lat []time.Duration
	sent, delivered := 0, 0
	m.receive = func(_ int, msg transport.Message, now time.Time) {
		delivered++
		lat = append(lat, now.Sub(sweepEpoch.Add(time.Duration(binary.BigEndian.Uint64(msg.Data)))))
	}
	m.next = start
	m.feed = func(now time.Time) {
		m.next = time.Time{}
		for _, s := range all {
			due := start.Add(time.Duration(s.sent) * s.gap)
			for ; !now.Before(due) && due.Before(end); due = start.Add(time.Duration(s.sent) * s.gap) {
				msg := make([]byte, s.size)
				binary.BigEndian.PutUint64(msg, uint64(now.Sub(sweepEpoch)))
				if err := m.s[s.side].Send(transport.ChannelID(s.side+1), msg, now); err != nil {
					panic(err) // the channels take 16 MiB: a bug, not backpressure
				}
				s.sent++
				sent++
			}
			if due.Before(end) && (m.next.IsZero() || due.Before(m.next)) {
				m.next = due
			}
		}
	}
	if err := m.runUntil(func() bool { return !m.now.Before(end) && delivered == sent }, d+time.Minute); err != nil {
		return err
	}
	slices.Sort(lat)
	r.P99 = lat[min(len(lat)-1, len(lat)*99/100)]
	return nil
}

// file sends one 8 MiB message and measures how long it takes.
func (m *sweepSim) file(r *SweepResult) error {
	const size = 8 << 20
	done := false
	m.receive = func(side int, msg transport.Message, _ time.Time) { done = side == 1 && len(msg.Data) == size }
	start := m.now
	if err := m.s[0].Send(1, make([]byte, size), m.now); err != nil {
		return err
	}
	if err := m.runUntil(func() bool { return done }, 5*time.Minute); err != nil {
		return err
	}
	r.Time = m.now.Sub(start)
	return nil
}

// bulk keeps the client's channel full and measures the goodput and the
// bottleneck's queueing delay for 10 s after a warm-up of 2 s or 20 min
// RTTs, whichever is longer (Startup's overshoot and its losses).
func (m *sweepSim) bulk(r *SweepResult, minRTT time.Duration) error {
	m.warm = m.now.Add(max(2*time.Second, 20*minRTT))
	end := m.warm.Add(10 * time.Second)
	got := 0
	m.receive = func(side int, msg transport.Message, now time.Time) {
		if side == 1 && !now.Before(m.warm) {
			got += len(msg.Data)
		}
	}
	chunk := make([]byte, 1100)
	m.next = m.now
	m.feed = func(now time.Time) {
		for m.s[0].Stats().Channels[0].Queued < 64 {
			if err := m.s[0].Send(1, chunk, now); err != nil {
				break
			}
		}
		m.next = now.Add(time.Millisecond)
	}
	if err := m.runUntil(func() bool { return !m.now.Before(end) }, 2*time.Minute); err != nil {
		return err
	}
	r.Goodput = float64(got) / end.Sub(m.warm).Seconds()
	slices.Sort(m.queued)
	if len(m.queued) > 0 {
		r.QueueP99 = m.queued[min(len(m.queued)-1, len(m.queued)*99/100)]
	}
	return nil
}

// SweepCheck compares the model's run of a cell with the fixed window's
// and returns why it misses the bounds, or "" if it meets them:
// message p99 at most 1.1× the fixed window's, transfer time at most
// 1.2×; through a bottleneck, queueing delay p99 at most half the min RTT
// and goodput at least 90% of the link.
func SweepCheck(model, fixed SweepResult) string {
	p := model.Path
	switch {
	case model.Workload != SweepFile:
		if float64(model.P99) > 1.1*float64(fixed.P99) {
			return fmt.Sprintf("p99 %.2f× the fixed window's", float64(model.P99)/float64(fixed.P99))
		}
	case p.Bottleneck > 0:
		if model.QueueP99 > p.MinRTT()/2 {
			return fmt.Sprintf("queue p99 over half the min RTT (%v)", p.MinRTT())
		}
		if model.Goodput < 0.9*float64(p.Bottleneck) {
			return fmt.Sprintf("goodput %.1f%% of the link", 100*model.Goodput/float64(p.Bottleneck))
		}
	default:
		if float64(model.Time) > 1.2*float64(fixed.Time) {
			return fmt.Sprintf("time %.2f× the fixed window's", float64(model.Time)/float64(fixed.Time))
		}
	}
	return ""
}

// SweepPaths returns the grid: loss 0/1/2/5%, jitter 0/5/20 ms,
// one-way delay 5/40/150 ms, no bottleneck, 10 and 2 Mbit/s, each steady
// and bursty.
func SweepPaths() []SweepPath {
	var ps []SweepPath
	for _, bn := range []int64{0, 10_000_000 / 8, 2_000_000 / 8} {
		for _, delay := range []time.Duration{5, 40, 150} {
			for _, jitter := range []time.Duration{0, 5, 20} {
				for _, loss := range []float64{0, 0.01, 0.02, 0.05} {
					for _, bursty := range []bool{false, true} {
						ps = append(ps, SweepPath{Delay: delay * time.Millisecond, Jitter: jitter * time.Millisecond,
							Loss: loss, Bottleneck: bn, Bursty: bursty})
					}
				}
			}
		}
	}
	return ps
}

// SweepRow is one row of the sweep table: a cell run with both
// controllers, and the verdict of SweepCheck.
type SweepRow struct {
	Model, Fixed SweepResult
	Miss         string
}

// RunSweep runs every workload on every path with both controllers,
// calling row after each cell.
func RunSweep(paths []SweepPath, seed uint64, row func(SweepRow)) error {
	for _, p := range paths {
		for _, w := range []SweepWorkload{SweepStream, SweepGame, SweepFile} {
			model, err := RunSweepCell(p, w, transport.CongestionModel, seed)
			if err != nil {
				return fmt.Errorf("%v %v model: %w", p, w, err)
			}
			var fixed SweepResult
			if w != SweepFile || p.Bottleneck == 0 {
				if fixed, err = RunSweepCell(p, w, transport.CongestionFixedWindow, seed); err != nil {
					return fmt.Errorf("%v %v fixed window: %w", p, w, err)
				}
			}
			row(SweepRow{Model: model, Fixed: fixed, Miss: SweepCheck(model, fixed)})
		}
	}
	return nil
}

// WriteSweepRows prints the rows of one path as a line of a Markdown
// table (see WriteSweepHeader): per workload the model's figure beside
// the fixed window's (stream and game: p99 latency; 8 MiB: transfer time,
// or through a bottleneck the model's goodput and queueing delay p99),
// and the bounds missed.
func WriteSweepRows(w io.Writer, rows []SweepRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "| %v |", rows[0].Model.Path)
	var misses []string
	for _, r := range rows {
		m, f := r.Model, r.Fixed
		switch {
		case m.Workload != SweepFile:
			fmt.Fprintf(w, " %s / %s |", ms(m.P99), ms(f.P99))
		case m.Path.Bottleneck > 0:
			fmt.Fprintf(w, " %.1f%%, queue %s |", 100*m.Goodput/float64(m.Path.Bottleneck), ms(m.QueueP99))
		default:
			fmt.Fprintf(w, " %.2f / %.2f s |", m.Time.Seconds(), f.Time.Seconds())
		}
		if r.Miss != "" {
			misses = append(misses, fmt.Sprintf("%v: %s", m.Workload, r.Miss))
		}
	}
	verdict := "ok"
	if len(misses) > 0 {
		verdict = strings.Join(misses, "; ")
	}
	fmt.Fprintf(w, " %s |\n", verdict)
}

// WriteSweepHeader prints the header of the sweep table.
func WriteSweepHeader(w io.Writer) {
	fmt.Fprintln(w, "| path (one way) | stream p99, model / fixed | game p99, model / fixed | 8 MiB, model / fixed (bottleneck: model goodput, queue p99) | bounds missed |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
