package join

import "github.com/tickwire/tickwire/wire"

// Leave tells the server that a player is done with its match: the room
// treats the seat as gone, and the server keeps the connection open to
// send it the MatchResult once the match ends. Client → server, on the
// orders lane. It has no fields.
type Leave struct{}

// Type is TypeLeave.
func (*Leave) Type() wire.MessageType { return TypeLeave }

// Append appends the encoding of l: the type alone.
func (*Leave) Append(dst []byte) ([]byte, error) {
	var b wire.Builder
	b.Reset(dst, TypeLeave)
	return build(dst, TypeLeave, &b)
}

func parseLeave(*reader) *Leave { return &Leave{} }
