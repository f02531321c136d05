package wire

import (
	"errors"
	"strconv"
)

// Sentinel errors. Builder and Reader wrap them in an *Error that records
// the field and offset; the standalone varint and message-type functions
// return them bare. Test with errors.Is.
var (
	// ErrShort: the input ends inside a field.
	ErrShort = errors.New("wire: input too short")
	// ErrOverflow: a varint does not fit in 64 bits, or a decoded count
	// does not fit in 32 bits.
	ErrOverflow = errors.New("wire: value overflows")
	// ErrOverlong: a varint is longer than MaxVarintLen or not in its
	// shortest form.
	ErrOverlong = errors.New("wire: varint overlong")
	// ErrTooLarge: a length prefix or element count exceeds the remaining
	// input, or a message exceeds the builder's size limit.
	ErrTooLarge = errors.New("wire: length exceeds limit")
	// ErrReservedType: a message type prefix starts with 0xE0-0xFF.
	ErrReservedType = errors.New("wire: reserved message type prefix")
	// ErrInvalidType: a MessageType value has no prefix encoding.
	ErrInvalidType = errors.New("wire: message type out of range")
	// ErrOutOfRange: a value cannot be represented in its field encoding
	// (a quantised position beyond 20.12 range, a NaN or infinite angle, a
	// negative skip).
	ErrOutOfRange = errors.New("wire: value out of range")
	// ErrInvalid: a field holds a byte pattern its encoding never produces
	// (a bool other than 0 or 1).
	ErrInvalid = errors.New("wire: invalid field value")
	// ErrUnclosedHeader: Build was called while an array or map header
	// still expected elements.
	ErrUnclosedHeader = errors.New("wire: unclosed array or map header")
	// ErrHeaderMisuse: Elem was called with no open header, or headers
	// were nested deeper than MaxHeaderDepth.
	ErrHeaderMisuse = errors.New("wire: array or map header misuse")
	// ErrTrailing: Finish found bytes after the last field.
	ErrTrailing = errors.New("wire: trailing bytes after message")
)

// Error is the error a Builder or Reader reports: which operation failed,
// at which byte offset of the message, and why.
type Error struct {
	Op     string // the write or read method, e.g. "String"
	Offset int    // byte offset from the start of the message
	Err    error  // one of the sentinel errors
}

func (e *Error) Error() string {
	return e.Err.Error() + " (" + e.Op + " at offset " + strconv.Itoa(e.Offset) + ")"
}

func (e *Error) Unwrap() error { return e.Err }
