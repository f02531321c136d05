package replay

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"

	"github.com/tickwire/tickwire/protocol"
)

// Replay is a replay file as read: everything up to its last whole
// record.
type Replay struct {
	Header Header
	// Frames are the recorded ticks in order; a Gap stands for frames
	// the writer lost.
	Frames []protocol.TickOrders
	Gaps   []Gap
	Syncs  []SyncHash
	Qos    []QosEvent
	Inputs []Input
	// Footer is nil when the file ends before it (a crash, a copy cut
	// short, a match still being written).
	Footer *Footer
	// Size is the file's size; Whole the bytes up to its last whole
	// record (Size unless Truncated).
	Size, Whole int64
	// Truncated reports that the file ends inside a record.
	Truncated bool
	links     []link
	unsigned  int    // records after the last signature
	tailTick  uint64 // the first frame tick after the last signature
}

// Ticks is the number of ticks the file holds: its frames and lost
// frames.
func (r *Replay) Ticks() uint64 {
	var n uint64
	if len(r.Frames) > 0 {
		n = r.Frames[len(r.Frames)-1].Tick + 1
	}
	for _, g := range r.Gaps {
		n = max(n, g.Tick+g.Count)
	}
	return n
}

// Read parses a replay file. A file that ends inside a record gives the
// replay up to its last whole record and an error wrapping ErrTruncated;
// a record that does not parse gives the replay before it and an error
// wrapping ErrCorrupt. The signatures are checked by Verify.
func Read(b []byte) (*Replay, error) {
	h, off, err := parseHeader(b)
	if err != nil {
		return nil, err
	}
	r := &Replay{Header: h, Size: int64(len(b)), Whole: int64(off)}
	rd := reader{r: r, prev: chainStart(b[:off]), seg: off}
	for off < len(b) {
		n, err := rd.record(b, off)
		if err != nil {
			r.tailTick = rd.first
			return r, err
		}
		off += n
		r.Whole = int64(off)
	}
	r.tailTick = rd.first
	return r, nil
}

// reader walks a file's records.
type reader struct {
	r       *Replay
	prev    []byte // the chain's last link
	seg     int    // offset of the first record after it
	next    uint64 // the tick the next frame must carry
	started bool
	first   uint64 // the first frame tick after the last link
	scratch []protocol.TickOrders
}

// record reads the record at b[off:] and returns its length.
func (rd *reader) record(b []byte, off int) (int, error) {
	r := rd.r
	kind := b[off]
	l, k := binary.Uvarint(b[off+1:])
	if k < 0 {
		return 0, fmt.Errorf("%w: record length at byte %d", ErrCorrupt, off)
	}
	if k == 0 || l > uint64(len(b)-off-1-k) {
		r.Truncated = true
		return 0, fmt.Errorf("%w: at byte %d, after %d ticks", ErrTruncated, off, r.Ticks())
	}
	n := 1 + k + int(l)
	d := &dec{b: b[off+1+k : off+n]}
	if r.Footer != nil && kind != kindSignature {
		return 0, fmt.Errorf("%w: record after the footer at byte %d", ErrCorrupt, off)
	}
	var err error
	switch kind {
	case kindFrame:
		err = rd.frame(d)
	case kindLost:
		err = rd.gap(d)
	case kindSync:
		var s SyncHash
		s, err = parseSync(d)
		r.Syncs = append(r.Syncs, s)
	case kindQos:
		var q QosEvent
		q, err = parseQos(d)
		r.Qos = append(r.Qos, q)
	case kindInput:
		var in Input
		in, err = parseInput(d)
		r.Inputs = append(r.Inputs, in)
	case kindFooter:
		var f Footer
		if f, err = parseFooter(d); err == nil {
			r.Footer = &f
		}
	case kindSignature:
		err = rd.signature(d, b[rd.seg:off])
		rd.seg = off + n
		r.unsigned = -1
	default:
		err = fmt.Errorf("%w: unknown record kind %#x", ErrCorrupt, kind)
	}
	if err != nil {
		return 0, fmt.Errorf("record at byte %d: %w", off, err)
	}
	r.unsigned++
	return n, nil
}

func (rd *reader) frame(d *dec) error {
	t, err := parseFrame(d, rd.scratch)
	if err != nil {
		return err
	}
	if err := rd.follow(t.Tick); err != nil {
		return err
	}
	rd.next = t.Tick + 1
	rd.r.Frames = append(rd.r.Frames, t)
	return nil
}

func (rd *reader) gap(d *dec) error {
	g, err := parseGap(d)
	if err != nil {
		return err
	}
	if err := rd.follow(g.Tick); err != nil {
		return err
	}
	if g.Count == 0 || g.Tick+g.Count < g.Tick {
		return fmt.Errorf("%w: a gap of %d frames", ErrCorrupt, g.Count)
	}
	rd.next = g.Tick + g.Count
	rd.r.Gaps = append(rd.r.Gaps, g)
	return nil
}

// follow checks that tick comes next.
func (rd *reader) follow(tick uint64) error {
	if rd.started && tick != rd.next {
		return fmt.Errorf("%w: tick %d after tick %d", ErrCorrupt, tick, rd.next-1)
	}
	if !rd.started {
		rd.first = tick
	}
	rd.started = true
	return nil
}

func (rd *reader) signature(d *dec, segment []byte) error {
	tick, sig, err := parseSignature(d)
	if err != nil {
		return err
	}
	l := link{firstTick: rd.first, tick: tick, message: signedMessage(rd.prev, tick, sha256.Sum256(segment)), sig: bytes.Clone(sig)}
	rd.r.links = append(rd.r.links, l)
	rd.prev = l.sig
	rd.first = rd.next
	return nil
}

// TickError names the first tick a check failed at.
type TickError struct {
	Tick uint64
	Err  error
}

func (e *TickError) Error() string { return fmt.Sprintf("tick %d: %v", e.Tick, e.Err) }
func (e *TickError) Unwrap() error { return e.Err }

// Verify checks the signature chain with key (nil: the key the header
// names). The first link that fails gives a *TickError naming the first
// tick it covers and wrapping ErrSignature; records after the last
// signature give one wrapping ErrUnsigned.
func (r *Replay) Verify(key ed25519.PublicKey) error {
	if key == nil {
		key = r.Header.RelayKey
	}
	if !bytes.Equal(key, r.Header.RelayKey) {
		return fmt.Errorf("%w: the file names %x", ErrKey, []byte(r.Header.RelayKey))
	}
	for i := range r.links {
		if l := &r.links[i]; !l.verify(key) {
			return &TickError{Tick: l.firstTick, Err: ErrSignature}
		}
	}
	if r.unsigned > 0 {
		return &TickError{Tick: r.tailTick, Err: ErrUnsigned}
	}
	return nil
}

// Signed is the number of signatures read.
func (r *Replay) Signed() int { return len(r.links) }

// ReadFile reads and parses the replay file at path (see Read).
func ReadFile(path string) (*Replay, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Read(b)
}
