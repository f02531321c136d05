package join

import (
	"github.com/tickwire/tickwire/wire"
)

// JoinRefused turns a join down; the server closes the connection after
// it. Server → client.
type JoinRefused struct {
	Reason RefusalReason
	Detail string // human-readable, at most MaxRefusalDetail bytes
}

// Type is TypeJoinRefused.
func (*JoinRefused) Type() wire.MessageType { return TypeJoinRefused }

// Append appends the encoding of j (the package doc draws it).
func (j *JoinRefused) Append(dst []byte) ([]byte, error) {
	switch {
	case j.Reason >= NumRefusalReasons:
		return dst, rangeError(TypeJoinRefused, "reason %d", j.Reason)
	case len(j.Detail) > MaxRefusalDetail:
		return dst, rangeError(TypeJoinRefused, "detail of %d bytes", len(j.Detail))
	}
	var b wire.Builder
	b.Reset(dst, TypeJoinRefused)
	b.U8(uint8(j.Reason)).String(j.Detail)
	return build(dst, TypeJoinRefused, &b)
}

func parseJoinRefused(r *reader) *JoinRefused {
	j := &JoinRefused{Reason: RefusalReason(r.U8())}
	if j.Reason >= NumRefusalReasons {
		r.outOfRange("refusal reason")
	}
	j.Detail = r.string("detail", MaxRefusalDetail)
	return j
}
