package replay

import (
	"bufio"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"sync"
	"time"

	"github.com/tickwire/tickwire/protocol"
)

// Defaults of a RecorderConfig.
const (
	// DefaultQueue is about 10 s of records at 30 ticks per second.
	DefaultQueue = 300
	// DefaultMaxWait is how long a full queue may hold the room's tick:
	// the seed design's send timeout (V45).
	DefaultMaxWait = 5 * time.Millisecond
)

// RecorderConfig configures a Recorder. The zero value is the defaults.
type RecorderConfig struct {
	// Queue is how many records wait for the disk at most (0:
	// DefaultQueue).
	Queue int
	// MaxWait is how long Frame, Sync and Qos wait for room in a full
	// queue before they count the record lost (0: DefaultMaxWait).
	MaxWait time.Duration
}

// Recorder writes a replay in the background: the room's goroutine hands
// it records and goes on; a goroutine of its own encodes the chain and
// writes to the sink. The queue is bounded: when the sink stalls and the
// queue is full, a record waits at most MaxWait and is then lost —
// counted, written as a gap in the chain, and the replay marked
// incomplete in its footer. The seed's writer dropped such frames
// silently (its V45); this one never hides a loss and never blocks the
// tick for longer than MaxWait.
//
// Frame, Sync, Qos, Input and Close must be called from one goroutine.
type Recorder struct {
	enc   *Encoder
	buf   *bufio.Writer
	sum   hash.Hash
	q     chan item
	wait  time.Duration
	timer *time.Timer
	done  chan struct{}
	err   error // the writer's first error; read after done

	// The producer's side.
	gap     Gap    // frames lost since the last frame queued
	lost    uint64 // frames lost in all
	dropped uint64 // other records lost
	scratch [][]byte
	closed  sync.Once
}

// item is one record on its way to the writer: a gap of lost frames to
// write first, then a frame (encoded), a sync hash, a QoS event, an
// input or the footer.
type item struct {
	gap    Gap
	kind   byte
	tick   uint64
	rec    []byte
	sync   SyncHash
	qos    QosEvent
	input  Input
	footer Footer
}

// NewRecorder writes h to sink, signed with key, and starts the
// background writer.
func NewRecorder(sink io.Writer, h Header, key ed25519.PrivateKey, cfg RecorderConfig) (*Recorder, error) {
	if cfg.Queue <= 0 {
		cfg.Queue = DefaultQueue
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = DefaultMaxWait
	}
	r := &Recorder{sum: sha256.New(), q: make(chan item, cfg.Queue), wait: cfg.MaxWait, done: make(chan struct{})}
	r.buf = bufio.NewWriter(io.MultiWriter(sink, r.sum))
	enc, err := NewEncoder(r.buf, h, key)
	if err != nil {
		return nil, err
	}
	r.enc = enc
	r.timer = time.NewTimer(time.Hour)
	r.timer.Stop()
	go r.run()
	return r, nil
}

// Frame records tick t's orders; it does not keep t.
func (r *Recorder) Frame(t protocol.TickOrders) {
	rec, packets, err := encodeFrame(nil, r.scratch[:0], t)
	r.scratch = packets
	if err == nil && r.put(item{gap: r.gap, kind: kindFrame, tick: t.Tick, rec: rec}) {
		r.gap = Gap{}
		return
	}
	if r.gap.Count == 0 {
		r.gap.Tick = t.Tick
	}
	r.gap.Count++
	r.lost++
}

// Sync records an agreed state hash.
func (r *Recorder) Sync(s SyncHash) { r.other(item{kind: kindSync, sync: s}) }

// Qos records a QoS adjustment.
func (r *Recorder) Qos(q QosEvent) { r.other(item{kind: kindQos, qos: q}) }

// Input records a player's input (a model's own encoding; Data is
// copied).
func (r *Recorder) Input(in Input) {
	in.Data = append([]byte(nil), in.Data...)
	r.other(item{kind: kindInput, input: in})
}

func (r *Recorder) other(it item) {
	if !r.put(it) {
		r.dropped++
	}
}

// put queues it, waiting at most MaxWait for room.
func (r *Recorder) put(it item) bool {
	select {
	case r.q <- it:
		return true
	default:
	}
	r.timer.Reset(r.wait)
	defer r.timer.Stop()
	select {
	case r.q <- it:
		return true
	case <-r.timer.C:
		return false
	}
}

// Lost is the number of frames lost so far, and of other records.
func (r *Recorder) Lost() (frames, others uint64) { return r.lost, r.dropped }

// Result is a finished replay: its size, its SHA-256 and its losses.
type Result struct {
	Bytes      int64
	SHA256     [sha256.Size]byte
	LostFrames uint64
	Incomplete bool
}

// ErrClosed: Close was called twice.
var ErrClosed = errors.New("replay: recorder closed")

// Close writes the footer (f, with the losses added), waits for the
// writer to finish and flush, and returns the result. It waits for the
// sink however long it stalls: the match is over.
func (r *Recorder) Close(f Footer) (Result, error) {
	err := ErrClosed
	r.closed.Do(func() { err = nil })
	if err != nil {
		return Result{}, err
	}
	f.LostFrames += r.lost
	if r.lost > 0 || r.dropped > 0 {
		f.Flags |= FlagIncomplete
	}
	r.q <- item{gap: r.gap, kind: kindFooter, footer: f}
	close(r.q)
	<-r.done
	res := Result{Bytes: r.enc.Written(), LostFrames: f.LostFrames, Incomplete: f.Incomplete()}
	r.sum.Sum(res.SHA256[:0])
	return res, r.err
}

// run is the background writer.
func (r *Recorder) run() {
	defer close(r.done)
	for it := range r.q {
		if r.err != nil {
			continue // drain: the producer never blocks on a dead writer
		}
		r.err = r.write(&it)
		if len(r.q) == 0 && r.err == nil {
			r.err = r.buf.Flush()
		}
	}
	if r.err == nil {
		r.err = r.buf.Flush()
	}
}

func (r *Recorder) write(it *item) error {
	if it.gap.Count > 0 {
		if err := r.enc.Gap(it.gap); err != nil {
			return err
		}
	}
	switch it.kind {
	case kindFrame:
		return r.enc.frameRecord(it.tick, it.rec)
	case kindSync:
		return r.enc.Sync(it.sync)
	case kindQos:
		return r.enc.Qos(it.qos)
	case kindInput:
		return r.enc.Input(it.input)
	case kindFooter:
		return r.enc.Finish(it.footer)
	}
	return nil
}
