package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Errors of the reader. Test with errors.Is.
var (
	// ErrNotReplay: the file does not start with the replay magic.
	ErrNotReplay = errors.New("replay: not a replay file")
	// ErrVersion: the file's format version is newer than this reader's.
	ErrVersion = errors.New("replay: unknown format version")
	// ErrCorrupt: a record or the header does not parse.
	ErrCorrupt = errors.New("replay: corrupt")
	// ErrTruncated: the file ends inside a record (a crash or a copy
	// cut short); what comes before it is still read.
	ErrTruncated = errors.New("replay: truncated")
	// ErrSignature: a signature of the chain does not verify.
	ErrSignature = errors.New("replay: bad signature")
	// ErrUnsigned: records follow the last signature (a truncated or
	// unfinished file): they are read but not authenticated.
	ErrUnsigned = errors.New("replay: records after the last signature")
	// ErrKey: the file's relay key is not the one expected.
	ErrKey = errors.New("replay: signed by another key")
)

// dec reads the fields of one record or of the header. Errors are sticky:
// after the first, every read returns zero. Lengths are checked against
// the bytes left before any slice is made, so no read allocates more than
// the input holds.
type dec struct {
	b   []byte
	off int
	err error
}

func (d *dec) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at byte %d", ErrCorrupt, what, d.off)
	}
}

func (d *dec) take(what string, n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.off {
		d.fail(what)
		return nil
	}
	p := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return p
}

func (d *dec) u8(what string) uint8 {
	if p := d.take(what, 1); p != nil {
		return p[0]
	}
	return 0
}

func (d *dec) u16(what string) uint16 {
	if p := d.take(what, 2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (d *dec) u32(what string) uint32 {
	if p := d.take(what, 4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *dec) u64(what string) uint64 {
	if p := d.take(what, 8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *dec) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.off += n
	return v
}

// count reads a count of items of at least min bytes each, refusing one
// the bytes left cannot hold.
func (d *dec) count(what string, min int) int {
	n := d.uvarint(what)
	if d.err == nil && n > uint64((len(d.b)-d.off)/max(min, 1)) {
		d.fail(what)
		return 0
	}
	return int(n)
}

// bytes reads a uvarint length and that many bytes (aliasing the input).
func (d *dec) bytes(what string) []byte { return d.take(what, d.count(what, 1)) }

func (d *dec) fixed(what string, dst []byte) { copy(dst, d.take(what, len(dst))) }

// done fails unless every byte was read.
func (d *dec) done(what string) error {
	if d.err == nil && d.off != len(d.b) {
		d.fail(what + ": trailing bytes")
	}
	return d.err
}
