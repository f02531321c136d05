package host

import (
	"errors"

	"github.com/tickwire/tickwire/transport"
)

// MaxOutbox bounds the bytes waiting for a client connection's reliable
// lane to take them. (A room's seats are under the room driver's
// policy instead: room.SendGrace, room.MaxBacklog.)
const MaxOutbox = 1 << 20

// ErrOutboxFull: a peer fell too far behind.
var ErrOutboxFull = errors.New("statesync/host: peer too far behind")

// Outbox holds, for a client's connection, the messages its reliable
// lane refused for the moment (transport.ErrBackpressure), in order: a
// TICK or a chunk of one can never be dropped, or the peer would wait
// for it forever.
type Outbox struct {
	queue [][]byte
	bytes int
}

// Send queues pieces behind what is waiting and sends what the lane
// takes. It returns the bytes the lane took and ErrOutboxFull when the
// backlog passes MaxOutbox.
func (o *Outbox) Send(conn *transport.Conn, lane transport.ChannelID, pieces [][]byte) (int, error) {
	for _, p := range pieces {
		o.queue = append(o.queue, p)
		o.bytes += len(p)
	}
	sent, err := o.Drain(conn, lane)
	if err == nil && o.bytes > MaxOutbox {
		err = ErrOutboxFull
	}
	return sent, err
}

// Drain sends what is waiting until the lane refuses.
func (o *Outbox) Drain(conn *transport.Conn, lane transport.ChannelID) (int, error) {
	sent := 0
	for len(o.queue) > 0 {
		err := conn.Send(lane, o.queue[0])
		if errors.Is(err, transport.ErrBackpressure) {
			return sent, nil
		}
		if err != nil {
			return sent, err
		}
		sent += len(o.queue[0])
		o.bytes -= len(o.queue[0])
		o.queue[0] = nil
		o.queue = o.queue[1:]
	}
	return sent, nil
}

// Waiting reports whether messages wait.
func (o *Outbox) Waiting() bool { return len(o.queue) > 0 }
