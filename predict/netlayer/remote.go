package netlayer

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/lanes"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// Remote is a predict.Network over a transport connection. A reader
// goroutine queues what arrives; Poll hands it over. The queue holds at
// most MaxQueued messages: past that the reader waits for a Poll (the
// transport's own flow control takes over) rather than drop a message.
type Remote struct {
	conn   *transport.Conn
	player predict.PlayerID

	mu      sync.Mutex
	queue   [][]byte
	err     error
	notify  chan struct{}
	drained chan struct{}
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	end     join.Ending // the match's certified result, when it comes
	idle    *join.IdleWatch
}

// MaxQueued is how many received messages a Remote holds for Poll.
const MaxQueued = 4096

// Join joins room (of roomSize players) over conn as a prediction client
// (server/join's Join) and returns the connection once seated. A refusal
// is a *join.JoinError. On failure conn is closed. Once the server has
// sent a first message, the Remote ends (Poll's error wraps
// join.ErrIdle) when nothing more arrives for join.DefaultIdleTimeout:
// a prediction server sends a snapshot every tick.
func Join(ctx context.Context, conn *transport.Conn, roomName string, roomSize int) (*Remote, error) {
	seat, err := join.Join(ctx, conn, join.Request{Room: roomName, RoomSize: roomSize, NetworkModel: room.Prediction})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("netlayer: %w", err)
	}
	rctx, cancel := context.WithCancel(context.Background())
	r := &Remote{conn: conn, player: predict.PlayerID(seat.Player), notify: make(chan struct{}, 1),
		drained: make(chan struct{}, 1), cancel: cancel, idle: join.WatchIdle(conn, 0)}
	r.wg.Go(func() { r.read(rctx) })
	return r, nil
}

// Player is the seat the server gave.
func (r *Remote) Player() predict.PlayerID { return r.player }

// Conn is the underlying connection (for its statistics).
func (r *Remote) Conn() *transport.Conn { return r.conn }

// read queues every message until the connection ends, waiting for a
// Poll while the queue is full.
func (r *Remote) read(ctx context.Context) {
	defer r.idle.Stop()
	for {
		m, err := r.conn.Receive(ctx)
		if err == nil {
			r.idle.Arm() // the match talks: it must go on talking
		}
		if err == nil && r.end.Keep(m.Data) {
			continue
		}
		r.mu.Lock()
		for err == nil && len(r.queue) >= MaxQueued {
			r.mu.Unlock()
			select {
			case <-r.drained:
			case <-ctx.Done():
				return
			}
			r.mu.Lock()
		}
		if err != nil {
			r.err = r.idle.Err(err)
		} else {
			r.queue = append(r.queue, m.Data)
		}
		r.mu.Unlock()
		select {
		case r.notify <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// Arrived is signalled when messages are waiting for Poll.
func (r *Remote) Arrived() <-chan struct{} { return r.notify }

// Send queues msg on its lane's channel and flushes.
func (r *Remote) Send(_ time.Duration, lane predict.Lane, m []byte) error {
	if err := r.conn.Send(lanes.Channel(lane), m); err != nil {
		return err
	}
	r.conn.Flush()
	return nil
}

// Poll delivers the queued messages; after they are delivered it returns
// the error that ended the connection, if any.
func (r *Remote) Poll(_ time.Duration, deliver func([]byte)) error {
	r.mu.Lock()
	q, err := r.queue, r.err
	r.queue = nil
	r.mu.Unlock()
	select {
	case r.drained <- struct{}{}:
	default:
	}
	for _, m := range q {
		deliver(m)
	}
	return err
}

// Leave leaves the match like Close, but first tells the server the
// player is done (join.Leave) and waits, until ctx is done or the server
// closes the connection, for the match's certified result: it returns it
// (nil and why if none came) and keeps it (Certificate). A prediction
// match ends when its last player goes, so the wait lasts until the
// others are done too.
func (r *Remote) Leave(ctx context.Context) ([]byte, error) {
	r.cancel()
	r.wg.Wait()
	cert, err := r.end.Leave(ctx, r.conn)
	r.Close()
	return cert, err
}

// Certificate is the match's certified result (join.MatchResult), or nil
// before it arrives.
func (r *Remote) Certificate() []byte { return r.end.Certificate() }

// Close closes the connection and waits for the reader.
func (r *Remote) Close() error {
	err := r.conn.Close()
	r.cancel()
	r.wg.Wait()
	return err
}
