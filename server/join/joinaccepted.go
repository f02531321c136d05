package join

import (
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/wire"
)

// JoinAccepted gives the client its seat: its player id and the room's
// size, tick rate and network model. What follows depends on the model
// (for lockstep: calibration once the room is full). Server → client.
type JoinAccepted struct {
	Player   protocol.PlayerID // 0 for a spectator
	RoomSize uint8
	TickRate uint16 // ticks per second
	// NetworkModel is the room's network model as the server asserts it:
	// the trust label a lobby shows ("fog_authoritative" is
	// maphack-proof). At most MaxModelName bytes.
	NetworkModel string
	// Secret, if not zero, lets this seat's player take its seat again
	// after its connection ended (a JoinRoom as AsRejoin); the zero
	// secret means the room's model takes no rejoins.
	Secret RejoinSecret
}

// Type is TypeJoinAccepted.
func (*JoinAccepted) Type() wire.MessageType { return TypeJoinAccepted }

// Append appends the encoding of a (the package doc draws it).
func (a *JoinAccepted) Append(dst []byte) ([]byte, error) {
	if len(a.NetworkModel) > MaxModelName {
		return dst, rangeError(TypeJoinAccepted, "network model beyond %d bytes", MaxModelName)
	}
	var b wire.Builder
	b.Reset(dst, TypeJoinAccepted)
	b.Uvarint(uint64(a.Player)).U8(a.RoomSize).U16(a.TickRate).String(a.NetworkModel)
	// The secret is optional: 0, or 1 and the secret.
	if a.Secret.IsZero() {
		b.U8(0)
	} else {
		b.U8(1)
		appendSecret(&b, a.Secret)
	}
	return build(dst, TypeJoinAccepted, &b)
}

func parseJoinAccepted(r *reader) *JoinAccepted {
	a := &JoinAccepted{Player: r.player(), RoomSize: r.U8(), TickRate: r.U16()}
	a.NetworkModel = r.string("network model", MaxModelName)
	switch r.U8() {
	case 0:
	case 1:
		a.Secret = r.secret()
	default:
		r.outOfRange("secret flag")
	}
	return a
}
