package join

import (
	"context"
	"errors"
	"fmt"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// ErrProtocol reports a server that broke the join exchange: an answer
// that does not parse, or a seat other than the one asked for.
var ErrProtocol = errors.New("join: server protocol violation")

// Request is what a client asks the server for. A connect token is not
// part of it: it travels in the secure handshake that opened conn
// (transport.SecurityConfig.Token), and the server refuses a join for
// another room than the token's (ErrToken).
type Request struct {
	Room     string // at most MaxRoomName bytes
	RoomSize int    // players the game needs, 1..255; any for a spectator or a rejoin
	// NetworkModel is the model the client plays; "" lets the server
	// decide. Join fails with ErrProtocol if the server seats the client
	// in a room of another model.
	NetworkModel string
	MatchType    string // "" is none
	// As is how to be seated: as a new player (the zero value), a
	// spectator, or a player taking its seat again with Player and
	// Secret (from an earlier Seat).
	As     Kind
	Player protocol.PlayerID
	Secret RejoinSecret
}

// Seat is the server's answer to a join.
type Seat struct {
	Player   protocol.PlayerID // 0 for a spectator
	RoomSize int
	TickRate int // ticks per second
	// NetworkModel is the room's model as the server asserts it.
	NetworkModel string
	// Secret takes the seat again after the connection ended (a Request
	// as AsRejoin); zero if the room's model takes no rejoins.
	Secret RejoinSecret
}

// Join runs the client side of the join exchange on an established
// connection (configured with server/lanes' channels): it sends JoinRoom
// on the orders lane and waits for the answer. A refusal is a *JoinError
// wrapping ErrRefused and the reason's sentinel (ErrRoomFull, …). Join
// leaves conn open either way: on success the model's client takes it
// over; on failure the caller closes it.
//
// The server queues the answer on the orders lane before the room's
// first message, so nothing else arrives there first; a model's message
// on another lane that overtakes the answer (a lost and resent
// JoinAccepted) is dropped, as an unreliable lane may drop it anyway.
func Join(ctx context.Context, conn *transport.Conn, req Request) (Seat, error) {
	j, b, err := req.Encode()
	if err != nil {
		return Seat{}, err
	}
	if err := conn.Send(lanes.Orders, b); err != nil {
		return Seat{}, fmt.Errorf("join: sending JoinRoom: %w", err)
	}
	conn.Flush()
	for {
		tm, err := conn.Receive(ctx)
		if err != nil {
			return Seat{}, fmt.Errorf("join: joining room %q: %w", req.Room, err)
		}
		if tm.Channel != lanes.Orders {
			continue
		}
		return Answer(j, tm.Data)
	}
}

// Encode returns the JoinRoom message req asks for and its bytes, which
// go on the orders lane: the first half of Join, for a client that drives
// its connection itself (a load generator's transport.Session).
func (req Request) Encode() (*JoinRoom, []byte, error) {
	size := req.RoomSize
	if req.As != AsPlayer {
		size = min(max(size, 1), 255)
	}
	if size < 1 || size > 255 {
		return nil, nil, fmt.Errorf("join: room size %d outside 1..255", req.RoomSize)
	}
	j := &JoinRoom{Room: req.Room, RoomSize: uint8(size), NetworkModel: req.NetworkModel, MatchType: req.MatchType,
		As: req.As, Player: req.Player, Secret: req.Secret}
	b, err := j.Append(nil)
	return j, b, err
}

// Answer reads the server's answer to j, the first message on the orders
// lane after it: the seat, a *JoinError for a refusal, or ErrProtocol.
func Answer(j *JoinRoom, data []byte) (Seat, error) {
	m, err := Parse(data)
	if err != nil {
		return Seat{}, fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	switch m := m.(type) {
	case *JoinRefused:
		return Seat{}, &JoinError{Reason: m.Reason, Detail: m.Detail}
	case *JoinAccepted:
		return seated(j, m)
	default:
		return Seat{}, fmt.Errorf("%w: %T instead of an answer", ErrProtocol, m)
	}
}

// seated checks the server's seat against the request.
func seated(j *JoinRoom, a *JoinAccepted) (Seat, error) {
	switch {
	case j.NetworkModel != "" && a.NetworkModel != j.NetworkModel:
		return Seat{}, fmt.Errorf("%w: seated in a %q room, not %q", ErrProtocol, a.NetworkModel, j.NetworkModel)
	case (j.As == AsSpectator) != (a.Player == 0), j.As == AsRejoin && a.Player != j.Player:
		return Seat{}, fmt.Errorf("%w: seated as player %d joining as %v", ErrProtocol, a.Player, j.As)
	}
	return Seat{Player: a.Player, RoomSize: int(a.RoomSize), TickRate: int(a.TickRate), NetworkModel: a.NetworkModel,
		Secret: a.Secret}, nil
}
