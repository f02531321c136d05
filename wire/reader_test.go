package wire

import (
	"errors"
	"math"
	"testing"
)

// msg builds a message of type EntityPosition from raw field bytes.
func msg(fields ...byte) []byte {
	return append([]byte{byte(EntityPosition)}, fields...)
}

func TestReaderErrors(t *testing.T) {
	huge := AppendUvarint(nil, math.MaxUint64)
	tests := []struct {
		name string
		msg  []byte
		read func(r *Reader)
		want error
		op   string
		off  int
	}{
		{"empty message", nil, func(r *Reader) {}, ErrShort, "Type", 0},
		{"short type", []byte{0xc0, 0x00}, func(r *Reader) {}, ErrShort, "Type", 0},
		{"reserved type", []byte{0xe5, 1, 2, 3}, func(r *Reader) {}, ErrReservedType, "Type", 0},
		{"short U8", msg(), func(r *Reader) { r.U8() }, ErrShort, "U8", 1},
		{"short U16", msg(1), func(r *Reader) { r.U16() }, ErrShort, "U16", 1},
		{"short U32", msg(1, 2, 3), func(r *Reader) { r.U32() }, ErrShort, "U32", 1},
		{"short I64", msg(1, 2, 3, 4, 5, 6, 7), func(r *Reader) { r.I64() }, ErrShort, "U64", 1},
		{"short Vec3", msg(make([]byte, 11)...), func(r *Reader) { r.Vec3() }, ErrShort, "U32", 9},
		{"bad bool", msg(2), func(r *Reader) { r.Bool() }, ErrInvalid, "Bool", 1},
		{"short varint", msg(0x80), func(r *Reader) { r.Uvarint() }, ErrShort, "Uvarint", 1},
		{"overlong varint", msg(0x80, 0x00), func(r *Reader) { r.Varint() }, ErrOverlong, "Varint", 1},
		{"overflowing varint", msg(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), func(r *Reader) { r.Uvarint() }, ErrOverflow, "Uvarint", 1},
		{"length beyond input", msg(3, 'a', 'b'), func(r *Reader) { r.StringView() }, ErrTooLarge, "String", 1},
		{"huge length", msg(huge...), func(r *Reader) { r.Bytes() }, ErrTooLarge, "Bytes", 1},
		{"huge CBOR length", msg(append(AppendUvarint(nil, 1<<40), 0xa0)...), func(r *Reader) { r.CBOR() }, ErrTooLarge, "CBOR", 1},
		{"bad length varint", msg(0x80, 0x00, 'a'), func(r *Reader) { r.Bytes() }, ErrOverlong, "Bytes", 1},
		{"array count beyond input", msg(3, 1, 2), func(r *Reader) { r.ArrayHeader() }, ErrTooLarge, "ArrayHeader", 1},
		{"map count beyond input", msg(2, 1, 2, 3), func(r *Reader) { r.MapHeader() }, ErrTooLarge, "MapHeader", 1},
		{"array count beyond 32 bits", msg(AppendUvarint(nil, 1<<32)...), func(r *Reader) { r.ArrayHeader() }, ErrOverflow, "ArrayHeader", 1},
		{"skip past end", msg(1, 2), func(r *Reader) { r.Skip(3) }, ErrShort, "Skip", 1},
		{"negative skip", msg(1, 2), func(r *Reader) { r.Skip(-1) }, ErrOutOfRange, "Skip", 1},
		{"trailing bytes", msg(1, 2), func(r *Reader) { r.U8(); r.Finish() }, ErrTrailing, "Finish", 2},
	}
	for _, tt := range tests {
		r := NewReader(tt.msg)
		tt.read(r)
		err := r.Err()
		var werr *Error
		if !errors.Is(err, tt.want) || !errors.As(err, &werr) || werr.Op != tt.op || werr.Offset != tt.off {
			t.Errorf("%s: err %v, want %v from %s at %d", tt.name, err, tt.want, tt.op, tt.off)
		}
		if r.Valid() || r.HasMore() {
			t.Errorf("%s: Valid %v, HasMore %v after an error", tt.name, r.Valid(), r.HasMore())
		}
	}
}

func TestReaderCounts(t *testing.T) {
	// A count equal to the remaining bytes is accepted (one byte per
	// element, two per map entry).
	r := NewReader(msg(3, 1, 2, 3))
	if n := r.ArrayHeader(); n != 3 || !r.Valid() {
		t.Errorf("ArrayHeader = %d, %v", n, r.Err())
	}
	r = NewReader(msg(2, 1, 2, 3, 4))
	if n := r.MapHeader(); n != 2 || !r.Valid() {
		t.Errorf("MapHeader = %d, %v", n, r.Err())
	}
}

func TestReaderStickyError(t *testing.T) {
	r := NewReader(msg(1, 2, 3))
	r.U8()
	r.U32() // fails: two bytes left
	first := r.Err()
	off, rem := r.Offset(), r.Remaining()
	if off != 2 || rem != 2 {
		t.Errorf("after a failed read: offset %d, remaining %d; want 2, 2", off, rem)
	}
	if r.U8() != 0 || r.Uvarint() != 0 || r.Bytes() != nil || r.StringView() != "" || r.ArrayHeader() != 0 || r.Bool() {
		t.Error("reads after an error returned non-zero values")
	}
	r.Skip(1)
	r.Skip(-1)
	if r.Err() != first || r.Offset() != off || r.Finish() != first {
		t.Errorf("error or offset changed after the first error: %v at %d", r.Err(), r.Offset())
	}
}

func TestReaderCursor(t *testing.T) {
	r := NewReader(msg(1, 2, 3, 4))
	if r.Type() != EntityPosition || r.Offset() != 1 || r.Remaining() != 4 || !r.HasMore() {
		t.Fatalf("fresh reader: type %v offset %d remaining %d", r.Type(), r.Offset(), r.Remaining())
	}
	r.Skip(2)
	if r.U8() != 3 || r.Remaining() != 1 {
		t.Errorf("after Skip(2): remaining %d", r.Remaining())
	}
	r.Skip(0)
	r.U8()
	if r.HasMore() || r.Finish() != nil {
		t.Errorf("at the end: HasMore %v, Finish %v", r.HasMore(), r.Err())
	}
	var zero Reader
	if zero.Valid() && zero.HasMore() {
		t.Error("zero Reader has input")
	}
	zero.Reset(msg(9))
	if zero.U8() != 9 {
		t.Error("Reset reader did not read")
	}
}

// TestReaderViewsAlias documents that Bytes, CBOR and StringView share
// memory with the message.
func TestReaderViewsAlias(t *testing.T) {
	m, err := NewBuilder(nil, ChatMessage).String("abc").Bytes([]byte("xyz")).CBOR([]byte{0xa0}).Build()
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(m)
	s, p, c := r.StringView(), r.Bytes(), r.CBOR()
	if s != "abc" || string(p) != "xyz" || len(c) != 1 || cap(p) != len(p) {
		t.Fatalf("read %q %q %x (cap %d)", s, p, c, cap(p))
	}
	for i := range m {
		m[i] = '!'
	}
	if s != "!!!" || string(p) != "!!!" || c[0] != '!' {
		t.Errorf("views did not alias the message: %q %q %x", s, p, c)
	}
}
