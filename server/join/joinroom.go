package join

import (
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/wire"
)

// JoinRoom asks the server for a seat in the named room, which starts a
// game once RoomSize players have joined. It is the first message a client
// sends, whatever the network model. Client → server.
type JoinRoom struct {
	Room     string // at most MaxRoomName bytes
	RoomSize uint8  // players the game needs, at least 1
	// NetworkModel is the network model the client can play ("lockstep",
	// "fog_authoritative", …); "" lets the server decide. The server
	// refuses a join whose model it does not pick for the room.
	NetworkModel string // at most MaxModelName bytes
	// MatchType names the kind of match ("ranked", "tournament", …); the
	// server may configure a network model per match type. "" is none.
	MatchType string // at most MaxModelName bytes
	// As is how the client joins: as a new player (AsPlayer, the zero
	// value), as a spectator of a room that is playing, or as a player
	// taking its seat again (AsRejoin) with Player and Secret. A
	// spectator's and a rejoining player's RoomSize is not checked.
	As Kind
	// Player and Secret prove a rejoin: the seat's player and the
	// secret the seat's JoinAccepted gave. Only sent with AsRejoin.
	Player protocol.PlayerID
	Secret RejoinSecret
}

// Kind is how a JoinRoom asks to be seated.
type Kind uint8

// Join kinds.
const (
	AsPlayer    Kind = iota // a new player of a room waiting for players
	AsSpectator             // a spectator of a room that is playing
	AsRejoin                // a player whose connection ended, back in its seat
	// NumKinds is the number of join kinds: every valid kind is below
	// it.
	NumKinds
)

func (k Kind) String() string {
	switch k {
	case AsPlayer:
		return "player"
	case AsSpectator:
		return "spectator"
	case AsRejoin:
		return "rejoin"
	}
	return "join?"
}

// RejoinSecret is the credential of a seat: whoever presents it with the
// seat's player in a JoinRoom takes the seat again. The server draws it
// from a cryptographic source for every seat of a model that takes
// rejoins (room.Model.Rejoin); the zero value means none.
type RejoinSecret [16]byte

// IsZero reports whether s is the zero secret (none).
func (s RejoinSecret) IsZero() bool { return s == RejoinSecret{} }

// Type is TypeJoinRoom.
func (*JoinRoom) Type() wire.MessageType { return TypeJoinRoom }

// Append appends the encoding of j (the package doc draws it).
func (j *JoinRoom) Append(dst []byte) ([]byte, error) {
	switch {
	case len(j.Room) > MaxRoomName:
		return dst, rangeError(TypeJoinRoom, "room name of %d bytes", len(j.Room))
	case j.RoomSize == 0:
		return dst, rangeError(TypeJoinRoom, "room size 0")
	case len(j.NetworkModel) > MaxModelName, len(j.MatchType) > MaxModelName:
		return dst, rangeError(TypeJoinRoom, "network model or match type beyond %d bytes", MaxModelName)
	case j.As >= NumKinds:
		return dst, rangeError(TypeJoinRoom, "join kind %d", j.As)
	case j.As == AsRejoin && j.Secret.IsZero():
		return dst, rangeError(TypeJoinRoom, "rejoin without a secret")
	}
	var b wire.Builder
	b.Reset(dst, TypeJoinRoom)
	b.String(j.Room).U8(j.RoomSize).String(j.NetworkModel).String(j.MatchType).U8(uint8(j.As))
	if j.As == AsRejoin {
		b.Uvarint(uint64(j.Player))
		appendSecret(&b, j.Secret)
	}
	return build(dst, TypeJoinRoom, &b)
}

func parseJoinRoom(r *reader) *JoinRoom {
	j := &JoinRoom{Room: r.string("room name", MaxRoomName), RoomSize: r.U8()}
	if j.RoomSize == 0 {
		r.outOfRange("room size 0")
	}
	j.NetworkModel = r.string("network model", MaxModelName)
	j.MatchType = r.string("match type", MaxModelName)
	j.As = Kind(r.U8())
	switch {
	case j.As >= NumKinds:
		r.outOfRange("join kind")
	case j.As == AsRejoin:
		j.Player = r.player()
		j.Secret = r.secret()
	}
	return j
}
