package room

import (
	"time"

	"github.com/tickwire/tickwire/transport"
)

// Core is a model's room as the Driver runs it: the model's pure core
// behind a small adapter that speaks in seats. It is called from the
// driver's goroutine only, with the server clock's now; it owns no
// socket, timer or goroutine. Its output follows etcd raft's contract
// (lockstep/relay's Core does too): HasReady, Ready, then Advance, which
// releases exactly what that Ready held; output produced after a Ready
// waits for the next one.
type Core interface {
	// Handle applies one entry of the inbox: a message a seat sent, a
	// seat's end (Inbound.Err, also when the driver drops a seat that
	// cannot keep up: ErrTooSlow), or a connection taking a seat
	// (Inbound.Joined). in.At is when it arrived; now is the turn's.
	Handle(now time.Duration, in *Inbound)
	// Tick runs what is due at now (a tick, a timeout, a settle).
	Tick(now time.Duration)
	// HasReady reports whether Ready has something.
	HasReady() bool
	// Ready returns what to send to whom, and which seats to close.
	Ready() Ready
	// Advance releases the last Ready: its messages have been sent.
	Advance()
	// Next returns when Tick is next due; false means only an inbound
	// message can make the room do something.
	Next() (time.Duration, bool)
	// Done reports whether the room is over: the driver stops.
	Done() bool
	// Status describes the room; the driver publishes it at the start,
	// about once a second (StatusInterval) and at the end.
	Status(now time.Duration) Status
	// End is called once when the driver stops, whatever the reason (the
	// match is over, every seat is gone, the server closes): the model's
	// last word for its figures. Nothing it sends is delivered.
	End(now time.Duration)
}

// InboundHolder is a Core that may let inbound messages wait for its
// next deadline instead of waking the room as they arrive (lockstep
// while the game plays: messages carry their arrival time, and nothing
// they cause is due before the deadline). A Core that is not one is woken
// by every message.
type InboundHolder interface {
	HoldInbound() bool
}

// Ready is one batch of a Core's output.
type Ready struct {
	// Messages are the messages to send, in order.
	Messages []Envelope
	// Close lists seats the model ends (a player removed from the
	// match), after this Ready's messages; each seat's end then arrives
	// in the inbox as usual.
	Close []Closing
}

// Envelope is one message for one seat, or for every open seat.
type Envelope struct {
	// Seat is the receiver's index in Params.Seats (spectators from
	// len(Params.Seats) up); ignored when Broadcast.
	Seat int
	// Broadcast sends the message to every open seat.
	Broadcast bool
	// Lane is the transport channel the message travels on.
	Lane transport.ChannelID
	// Data is the encoded message; the driver copies what it keeps, so
	// the Core may reuse it after Advance.
	Data []byte
}

// Closing is a seat the model ends, and the reason its peer reads.
type Closing struct {
	Seat   int
	Reason string
}
