package join

import (
	"bytes"

	"github.com/tickwire/tickwire/wire"
)

// MaxMatchResult is the longest certificate a MatchResult carries, in
// bytes: a record of 255 players with their keys, its removals and the
// signature fit with room to spare.
const MaxMatchResult = 64 << 10

// MatchResult is the certified result of the match the client played,
// sent by the server to each player still connected (or that left with
// Leave) when the match ends, just before it closes the connection.
// Server → client, on the orders lane.
type MatchResult struct {
	// Certificate is the signed match record as the server's operator
	// makes it (tickwire's records.Certificate as JSON, which `tickwire
	// matches verify` reads); opaque to the join exchange. At most
	// MaxMatchResult bytes, not empty.
	Certificate []byte
}

// Type is TypeMatchResult.
func (*MatchResult) Type() wire.MessageType { return TypeMatchResult }

// Append appends the encoding of m (the package doc draws it).
func (m *MatchResult) Append(dst []byte) ([]byte, error) {
	if len(m.Certificate) == 0 || len(m.Certificate) > MaxMatchResult {
		return dst, rangeError(TypeMatchResult, "certificate of %d bytes (1..%d)", len(m.Certificate), MaxMatchResult)
	}
	var b wire.Builder
	b.Reset(dst, TypeMatchResult)
	b.Bytes(m.Certificate)
	return build(dst, TypeMatchResult, &b)
}

func parseMatchResult(r *reader) *MatchResult {
	c := r.Bytes()
	if r.Valid() && (len(c) == 0 || len(c) > MaxMatchResult) {
		r.outOfRange("certificate length")
		return &MatchResult{}
	}
	return &MatchResult{Certificate: bytes.Clone(c)}
}
