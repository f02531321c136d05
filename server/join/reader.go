package join

import (
	"fmt"
	"math"
	"strings"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/wire"
)

// reader is a wire.Reader that also keeps the first out-of-range value
// it met (a sticky error, like the wire error).
type reader struct {
	*wire.Reader
	bad error
}

// outOfRange records ErrRange for what, unless an error came first.
func (r *reader) outOfRange(what string) {
	if r.Valid() && r.bad == nil {
		r.bad = fmt.Errorf("%w: %s", ErrRange, what)
	}
}

// finish is the result of the whole parse: the first error met (a value
// out of range is only recorded while the reads before it succeeded), or
// trailing bytes.
func (r *reader) finish() error {
	switch {
	case r.bad != nil:
		return r.bad
	case r.Err() != nil:
		return fmt.Errorf("%w: %w", ErrMalformed, r.Err())
	}
	if err := r.Finish(); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return nil
}

// string reads a length-prefixed string of at most max bytes into a
// fresh string.
func (r *reader) string(what string, max int) string {
	s := r.StringView()
	if len(s) > max {
		r.outOfRange(what + " too long")
		return ""
	}
	return strings.Clone(s)
}

// player reads a player id (a uvarint of at most 16 bits).
func (r *reader) player() protocol.PlayerID {
	v := r.Uvarint()
	if v > math.MaxUint16 {
		r.outOfRange("player id beyond 16 bits")
		return 0
	}
	return protocol.PlayerID(v)
}

// secret reads the 16 bytes of a rejoin secret, which must not be zero.
func (r *reader) secret() RejoinSecret {
	var s RejoinSecret
	for i := range s {
		s[i] = r.U8()
	}
	if s.IsZero() {
		r.outOfRange("zero rejoin secret")
	}
	return s
}

func appendSecret(b *wire.Builder, s RejoinSecret) {
	for _, c := range s {
		b.U8(c)
	}
}
