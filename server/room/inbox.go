package room

import (
	"errors"
	"sync"
	"time"

	"github.com/tickwire/tickwire/transport"
)

// ErrLeft is a seat's end by the player's own Leave (join.Leave): the
// player is gone for the Core, and the driver keeps its connection to
// send it the match result when the match ends.
var ErrLeft = errors.New("left: the player is done with the match")

// Inbound is one entry of an Inbox: a message a seat sent, the seat's
// end, or a connection taking a seat while the room plays.
type Inbound struct {
	// Seat is the sender's index in Params.Seats; a spectator's index is
	// at least len(Params.Seats).
	Seat int
	// At is the server clock when the message was read.
	At time.Duration
	// Msg is the message as the transport delivered it; the room owns
	// Msg.Data.
	Msg transport.Message
	// Err, if set, says the seat's connection ended (Msg is empty): the
	// player is gone.
	Err error
	// Joined, if set, is a connection taking the seat while the room
	// plays (Msg is empty): a player back in its seat after its earlier
	// connection's end (always posted before this), a new player in the
	// seat of one that left (Model.LateJoin), or a new spectator.
	// It is answered JoinAccepted already; the room sends what the
	// model sends a joiner. Only models with Rejoin, LateJoin or
	// MaxSpectators receive it.
	Joined *Seat
}

// Inbox is the queue from a room's connections (their message handlers,
// on the transport's read goroutines) to the room's goroutine.
// It holds what was posted and not yet taken, growing only with the
// traffic (nothing is allocated for a room's size up front); the readers
// bound each connection's share before posting (see the server's
// inbound rate limit). Post, Put, Wake and Take are safe for concurrent
// use.
type Inbox struct {
	mu   sync.Mutex
	q    []Inbound
	wake chan struct{}
}

// NewInbox returns an empty inbox.
func NewInbox() *Inbox { return &Inbox{wake: make(chan struct{}, 1)} }

// Post queues in and wakes the room.
func (b *Inbox) Post(in Inbound) {
	b.Put(in)
	b.Wake()
}

// Put queues in without waking the room: a reader that queues a batch
// of messages wakes it once, after the batch (the inbox is a
// transport.Waker).
func (b *Inbox) Put(in Inbound) {
	b.mu.Lock()
	b.q = append(b.q, in)
	b.mu.Unlock()
}

// Wake wakes the room to take what was put.
func (b *Inbox) Wake() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Ready returns a channel that receives a value after a Post or a Wake; a room
// selects on it and then calls Take. A value may remain after a Take
// emptied the inbox: Take then returns nothing.
func (b *Inbox) Ready() <-chan struct{} { return b.wake }

// Take appends everything queued to dst, in the order posted, and empties
// the inbox.
func (b *Inbox) Take(dst []Inbound) []Inbound {
	b.mu.Lock()
	dst = append(dst, b.q...)
	clear(b.q)
	b.q = b.q[:0]
	b.mu.Unlock()
	return dst
}

// Len returns the number of entries queued.
func (b *Inbox) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.q)
}
