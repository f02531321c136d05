package replay

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/tickwire/tickwire/protocol"
)

// ErrFinished: a record was written after Finish.
var ErrFinished = errors.New("replay: finished")

// Encoder writes a replay file record by record, signing every
// Header.SignEvery frames. It is synchronous and not safe for concurrent
// use: a live server wraps it in a Recorder, which writes in the
// background.
type Encoder struct {
	w        io.Writer
	key      ed25519.PrivateKey
	every    int
	prev     []byte    // the chain's last link
	seg      hash.Hash // SHA-256 of the records since it
	frames   int       // frames since it
	first    uint64    // the first frame tick since it
	next     uint64    // the tick the next frame must carry
	started  bool      // a frame was written
	buf      []byte
	packets  [][]byte
	written  int64
	finished bool
	err      error
}

// NewEncoder writes the file's magic, version and header to w and
// returns the encoder of its records. h.RelayKey is set to key's public
// key; h.SignEvery 0 means 300 (10 s at 30 ticks per second).
func NewEncoder(w io.Writer, h Header, key ed25519.PrivateKey) (*Encoder, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, errors.New("replay: the signing key is not an Ed25519 private key")
	}
	if h.SignEvery == 0 {
		h.SignEvery = 300
	}
	h.RelayKey = key.Public().(ed25519.PublicKey)
	if err := checkHeader(&h); err != nil {
		return nil, err
	}
	e := &Encoder{w: w, key: key, every: int(h.SignEvery), seg: sha256.New()}
	head := appendHeader(nil, &h)
	e.prev = chainStart(head)
	if err := e.write(head, false); err != nil {
		return nil, err
	}
	return e, nil
}

// Written is the number of bytes written so far.
func (e *Encoder) Written() int64 { return e.written }

// write writes b; a record (segment true) also enters the chain.
func (e *Encoder) write(b []byte, segment bool) error {
	if e.err != nil {
		return e.err
	}
	if segment {
		e.seg.Write(b)
	}
	n, err := e.w.Write(b)
	e.written += int64(n)
	if err != nil {
		e.err = fmt.Errorf("replay: writing: %w", err)
	}
	return e.err
}

func (e *Encoder) record(b []byte) error {
	if e.finished {
		return ErrFinished
	}
	return e.write(b, true)
}

// Frame writes tick t's orders. Frames must follow each other (t.Tick
// one more than the last frame's, or than the last Gap's); every
// SignEvery frames a signature follows.
func (e *Encoder) Frame(t protocol.TickOrders) error {
	var err error
	e.buf, e.packets, err = encodeFrame(e.buf[:0], e.packets[:0], t)
	if err != nil {
		return err
	}
	return e.frameRecord(t.Tick, e.buf)
}

// encodeFrame appends t's frame record to b, using packets as scratch.
func encodeFrame(b []byte, packets [][]byte, t protocol.TickOrders) ([]byte, [][]byte, error) {
	packets, err := frameCodec().Encode(packets, []protocol.TickOrders{t})
	if err != nil {
		return b, packets, fmt.Errorf("replay: frame %d: %w", t.Tick, err)
	}
	return appendFrame(b, packets, t.Tick), packets, nil
}

// frameRecord writes the encoded frame record rec of tick.
func (e *Encoder) frameRecord(tick uint64, rec []byte) error {
	if e.started && tick != e.next {
		return fmt.Errorf("replay: frame %d after tick %d", tick, e.next-1)
	}
	if e.frames == 0 {
		e.first = tick
	}
	if err := e.record(rec); err != nil {
		return err
	}
	e.started, e.next = true, tick+1
	e.frames++
	if e.frames >= e.every {
		return e.sign()
	}
	return nil
}

// Gap records that count frames from tick on were lost: the next frame
// is tick+count.
func (e *Encoder) Gap(g Gap) error {
	if e.started && g.Tick != e.next {
		return fmt.Errorf("replay: gap at %d after tick %d", g.Tick, e.next-1)
	}
	e.buf = appendGap(e.buf[:0], g)
	if err := e.record(e.buf); err != nil {
		return err
	}
	if e.frames == 0 {
		e.first = g.Tick
	}
	e.started, e.next = true, g.Tick+g.Count
	return nil
}

// Sync writes an agreed state hash.
func (e *Encoder) Sync(s SyncHash) error {
	e.buf = appendSync(e.buf[:0], s)
	return e.record(e.buf)
}

// Qos writes a QoS adjustment.
func (e *Encoder) Qos(q QosEvent) error {
	e.buf = appendQos(e.buf[:0], q)
	return e.record(e.buf)
}

// Input writes a player's input in a model's own encoding.
func (e *Encoder) Input(in Input) error {
	e.buf = appendInput(e.buf[:0], in)
	return e.record(e.buf)
}

// sign closes the chain's segment with a signature.
func (e *Encoder) sign() error {
	var sum [sha256.Size]byte
	e.seg.Sum(sum[:0])
	last := e.next - 1
	if !e.started {
		last = 0
	}
	sig := ed25519.Sign(e.key, signedMessage(e.prev, last, sum))
	e.buf = appendSignature(e.buf[:0], last, sig)
	if err := e.write(e.buf, false); err != nil {
		return err
	}
	e.prev, e.frames = sig, 0
	e.seg.Reset()
	return nil
}

// Finish writes the footer and the last signature. Nothing may follow.
func (e *Encoder) Finish(f Footer) error {
	e.buf = appendFooter(e.buf[:0], f)
	if err := e.record(e.buf); err != nil {
		return err
	}
	e.finished = true
	return e.sign()
}
