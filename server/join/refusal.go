package join

import (
	"errors"
	"fmt"
)

// RefusalReason says why the server refused a join.
type RefusalReason uint8

// Refusal reasons. Each has a sentinel error (RefusalReason.Err) that a
// refused Join's error wraps.
const (
	RefuseRoomFull         RefusalReason = iota // the room has all its players (or spectators)
	RefuseServerFull                            // the server hosts as many games as it may
	RefuseSizeMismatch                          // the room exists with another size
	RefuseBadRequest                            // the first message was not a valid JoinRoom
	RefuseShutdown                              // the server is shutting down
	RefuseRoomSize                              // the room size is beyond the network model's bound
	RefuseTooManyRooms                          // the peer's address already waits in as many rooms as it may
	RefuseModelUnavailable                      // the server does not host the requested network model
	RefuseModelMismatch                         // the room (or the match type) plays another network model
	RefuseToken                                 // no connect token for this room
	RefuseNotPlaying                            // a spectator or rejoin names a room that is not playing
	RefuseRejoinDenied                          // a rejoin's player and secret do not match a seat
	RefuseUnsupported                           // the room's model takes no spectators (or no rejoins), or this room none
	// NumRefusalReasons is the number of refusal reasons: every valid
	// reason is below it.
	NumRefusalReasons
)

// The refusals, one sentinel per reason, and ErrRefused, which every
// refusal also wraps. Test with errors.Is.
var (
	ErrRefused          = errors.New("join refused")
	ErrRoomFull         = errors.New("room full")
	ErrServerFull       = errors.New("server full")
	ErrSizeMismatch     = errors.New("room size mismatch")
	ErrBadRequest       = errors.New("bad request")
	ErrShutdown         = errors.New("shutting down")
	ErrRoomSize         = errors.New("room size out of range")
	ErrTooManyRooms     = errors.New("too many waiting rooms")
	ErrModelUnavailable = errors.New("network model unavailable")
	ErrModelMismatch    = errors.New("network model mismatch")
	ErrToken            = errors.New("connect token")
	ErrNotPlaying       = errors.New("room not playing")
	ErrRejoinDenied     = errors.New("rejoin denied")
	ErrUnsupported      = errors.New("not supported")
)

// refusals are the sentinels by reason; their texts are the reasons'
// names (which label the refused-join metric). Never modified.
var refusals = [NumRefusalReasons]error{ErrRoomFull, ErrServerFull, ErrSizeMismatch, ErrBadRequest, ErrShutdown,
	ErrRoomSize, ErrTooManyRooms, ErrModelUnavailable, ErrModelMismatch, ErrToken,
	ErrNotPlaying, ErrRejoinDenied, ErrUnsupported}

// String is the reason's name: "room full", "server full", ….
func (r RefusalReason) String() string {
	if r < NumRefusalReasons {
		return refusals[r].Error()
	}
	return "refusal?"
}

// Err is the reason's sentinel error (ErrRoomFull for RefuseRoomFull,
// …); ErrRefused for a reason out of range.
func (r RefusalReason) Err() error {
	if r < NumRefusalReasons {
		return refusals[r]
	}
	return ErrRefused
}

// JoinError is a refused join: what Join returns when the server answers
// JoinRefused. It wraps ErrRefused and the reason's sentinel, so
// errors.Is(err, join.ErrRoomFull) tells a full room from any other
// refusal.
type JoinError struct {
	Reason RefusalReason
	Detail string // the server's explanation, for people
}

func (e *JoinError) Error() string {
	return fmt.Sprintf("join refused (%v): %s", e.Reason, e.Detail)
}

// Unwrap returns ErrRefused and the reason's sentinel.
func (e *JoinError) Unwrap() []error { return []error{ErrRefused, e.Reason.Err()} }
