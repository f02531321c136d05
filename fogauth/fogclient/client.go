package fogclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// The lanes of a fog-authoritative connection.
const (
	laneReliable = lanes.Orders  // orders, Done up; MatchStart, Rejection, MatchEnd down
	laneAck      = lanes.Control // Acks up
)

// ErrProtocol reports a server that broke the fog-authoritative protocol.
var ErrProtocol = errors.New("fogclient: protocol error")

// Config configures a client. The zero value is usable.
type Config struct {
	// MatchType is the match type asked for in the join.
	MatchType string
	// Logger receives the client's logs; nil discards them.
	Logger *slog.Logger
	// OnStateUpdate, if set, sees every StateUpdate as it arrives, before
	// it is applied (for dumps). It runs on the reader goroutine; data is
	// valid only during the call.
	OnStateUpdate func(tick uint64, data []byte)
	// Clock measures the time to apply a StateUpdate; nil means
	// time.Now.
	Clock func() time.Time
	// IdleTimeout ends the client when no message arrived for that long
	// although the connection is up (join.WatchIdle): 0 means
	// join.DefaultIdleTimeout, negative never.
	IdleTimeout time.Duration
}

// Status is where a client is in its match.
type Status uint8

// Client states.
const (
	StatusPlaying      Status = iota // the match started: state updates flow
	StatusEnded                      // the match is over (MatchEnd arrived)
	StatusDisconnected               // the connection ended before the match did
)

var statusNames = [...]string{"playing", "ended", "disconnected"}

// String returns the status in lower case.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "unknown"
}

// Diagnostics are the transport figures of a client.
type Diagnostics struct {
	Tick          uint64        // newest tick whose StateUpdate was applied
	RTT           time.Duration // smoothed round-trip time to the server
	Loss          float64       // fraction of datagrams lost, 0..1
	OrdersSent    int           // orders sent
	BytesSent     uint64        // bytes sent on the wire
	BytesReceived uint64        // bytes received on the wire
}

// FogDiagnostics are the fog-specific figures of the seed's
// diagnostics map.
type FogDiagnostics struct {
	EntitiesTracked       int
	UpdatesReceived       uint64
	BandwidthKbps         float64 // StateUpdate bytes received per second since the match started, in KiB/s
	VisibilityRecomputeUs int64   // time to apply the last StateUpdate to the partial world
	Counters              fogauth.ClientCounters
}

// Client is a fog-authoritative client over one transport connection.
type Client struct {
	conn    *transport.Conn
	cfg     Config
	log     *slog.Logger
	player  protocol.PlayerID
	model   string
	ticket  Ticket
	start   fogauth.MatchStart
	started bool // the MatchStart arrived
	began   time.Time

	mu        sync.Mutex
	core      *fogauth.Client
	status    Status
	applyUs   int64
	lastTick  uint64
	rejects   []fogauth.Rejection // scratch of observeRejections
	ticked    chan struct{}       // a value after a new tick arrived
	done      chan struct{}       // closed when the connection ended
	over      chan struct{}       // closed when the MatchEnd arrived
	idle      *join.IdleWatch
	endErr    error
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	bytesDown uint64
	end       join.Ending // the match's certified result, when it comes
}

// Join asks the server on conn for a seat in the fog-authoritative room
// named room of roomSize players (server/join's Join) and waits for the
// match to start (MatchStart). A refusal is a *join.JoinError. On error
// conn is closed.
func Join(ctx context.Context, conn *transport.Conn, roomName string, roomSize int, cfg Config) (*Client, error) {
	if roomSize < 1 || roomSize > fogauth.MaxPlayers {
		conn.Close()
		return nil, fmt.Errorf("fogclient: room size %d outside 1..%d", roomSize, fogauth.MaxPlayers)
	}
	return joinAs(ctx, conn, join.Request{Room: roomName, RoomSize: roomSize}, cfg)
}

// Spectate asks the server on conn for a spectator seat in the playing
// fog-authoritative room named room and waits for its MatchStart. A
// spectator sees the union of the players' views (or the whole map, if
// the server says so) and gives no orders (the server rejects them). On
// error conn is closed.
func Spectate(ctx context.Context, conn *transport.Conn, roomName string, cfg Config) (*Client, error) {
	return joinAs(ctx, conn, join.Request{Room: roomName, As: join.AsSpectator}, cfg)
}

// Ticket is what a player needs to take its seat again after its
// connection ended: the room, the player and the seat's secret from the
// server's join answer. Keep it private: whoever holds it can play the
// seat.
type Ticket struct {
	Room     string
	RoomSize int
	Player   protocol.PlayerID
	Secret   join.RejoinSecret
}

// Ticket returns the client's rejoin ticket; ok is false for a spectator
// or when the server takes no rejoins.
func (c *Client) Ticket() (t Ticket, ok bool) { return c.ticket, !c.ticket.Secret.IsZero() }

// Rejoin takes a player's seat again on a new connection with its
// ticket, after the earlier connection ended (or to replace one that
// seems lost: the server closes the old connection). The new client
// starts from an empty partial world: the server sends everything the
// player sees again, spread over ticks by its budget. On error conn is
// closed.
func Rejoin(ctx context.Context, conn *transport.Conn, t Ticket, cfg Config) (*Client, error) {
	return joinAs(ctx, conn, join.Request{Room: t.Room, RoomSize: t.RoomSize, As: join.AsRejoin, Player: t.Player, Secret: t.Secret}, cfg)
}

func joinAs(ctx context.Context, conn *transport.Conn, req join.Request, cfg Config) (*Client, error) {
	req.NetworkModel, req.MatchType = room.FogAuthoritative, cfg.MatchType
	c, err := seat(ctx, conn, req, cfg)
	if err != nil {
		conn.Close()
	}
	return c, err
}

// seat joins and waits for the MatchStart.
func seat(ctx context.Context, conn *transport.Conn, req join.Request, cfg Config) (*Client, error) {
	c := &Client{conn: conn, cfg: cfg, log: cfg.Logger, ticked: make(chan struct{}, 1), done: make(chan struct{}), over: make(chan struct{})}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.cfg.Clock == nil {
		c.cfg.Clock = time.Now
	}
	st, err := join.Join(ctx, conn, req)
	if err != nil {
		return nil, fmt.Errorf("fogclient: %w", err)
	}
	c.player, c.model = st.Player, st.NetworkModel
	c.ticket = Ticket{Room: req.Room, RoomSize: st.RoomSize, Player: st.Player, Secret: st.Secret}
	for !c.started {
		tm, err := conn.Receive(ctx)
		if err != nil {
			return nil, fmt.Errorf("fogclient: waiting for the match in room %q: %w", req.Room, err)
		}
		if len(tm.Data) == 0 || tm.Data[0] != fogauth.TypeMatchStart {
			continue // a StateUpdate overtaking the MatchStart: the next ones will do
		}
		if c.start, err = fogauth.ParseMatchStart(tm.Data); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrProtocol, err)
		}
		c.started = true
	}
	c.core = fogauth.NewClient(c.player)
	c.status = StatusPlaying
	c.began = c.cfg.Clock()
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.idle = join.WatchIdle(conn, cfg.IdleTimeout)
	c.idle.Arm() // the MatchStart came: a StateUpdate every tick from now on
	c.wg.Add(2)
	go c.read()
	go c.flushLoop()
	return c, nil
}

// read applies every message until the connection ends.
func (c *Client) read() {
	defer c.wg.Done()
	defer close(c.done)
	for {
		tm, err := c.conn.Receive(c.ctx)
		if err != nil {
			c.mu.Lock()
			c.endErr = c.idle.Err(err)
			if _, _, ended := c.core.End(); ended {
				c.status = StatusEnded
			} else {
				c.status = StatusDisconnected
			}
			c.mu.Unlock()
			c.idle.Stop() // the connection is gone: nothing left to watch
			return
		}
		if c.end.Keep(tm.Data) {
			continue
		}
		isState := len(tm.Data) > 0 && tm.Data[0] == fogauth.TypeStateUpdate
		if isState && c.cfg.OnStateUpdate != nil && len(tm.Data) >= fogauth.HeaderSize {
			c.cfg.OnStateUpdate(leUint64(tm.Data[1:]), tm.Data)
		}
		c.mu.Lock()
		t0 := c.cfg.Clock()
		if err := c.core.Receive(tm.Data); err != nil {
			c.log.Warn("fogclient: bad message", "err", err)
		}
		if isState {
			c.applyUs = c.cfg.Clock().Sub(t0).Microseconds()
			c.bytesDown += uint64(len(tm.Data))
		}
		tick := c.core.World().Tick()
		newTick := tick > c.lastTick
		c.lastTick = tick
		_, _, over := c.core.End()
		c.mu.Unlock()
		if over && !isClosed(c.over) {
			close(c.over)
		}
		if newTick {
			select {
			case c.ticked <- struct{}{}:
			default:
			}
		}
	}
}

func leUint64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// flushLoop sends the acknowledgement and queued orders twice per tick.
func (c *Client) flushLoop() {
	defer c.wg.Done()
	rate := max(int(c.start.TickRate), 1)
	t := time.NewTicker(time.Second / time.Duration(2*rate))
	defer t.Stop()
	for {
		select {
		case <-t.C:
			c.Flush()
		case <-c.done:
			return
		case <-c.ctx.Done():
			return
		}
	}
}

// Flush sends the acknowledgement of the StateUpdates applied and the
// queued orders now.
func (c *Client) Flush() {
	c.mu.Lock()
	orders, ack, err := c.core.Flush()
	if err != nil {
		c.log.Warn("fogclient: orders not encodable", "err", err)
	}
	for _, o := range orders {
		if err := c.conn.Send(laneReliable, o); err != nil {
			c.log.Warn("fogclient: orders not sent", "err", err)
		}
	}
	if ack != nil {
		c.conn.Send(laneAck, ack)
	}
	c.mu.Unlock()
	if len(orders) > 0 || ack != nil {
		c.conn.Flush()
	}
}

// Done tells the server the player has played the ticks it meant to;
// once every player has, the server ends the match (each client then
// receives its final view and a MatchEnd, and the connection closes).
func (c *Client) Done() error {
	err := c.conn.Send(laneReliable, []byte{fogauth.TypeDone})
	c.conn.Flush()
	return err
}

// Player is the client's player.
func (c *Client) Player() protocol.PlayerID { return c.player }

// NetworkModel is the model the server asserted for the room.
func (c *Client) NetworkModel() string { return c.model }

// Match is the match's public set-up.
func (c *Client) Match() fogauth.MatchStart { return c.start }

// SubmitOrder queues an order for the server (sent at the next flush).
func (c *Client) SubmitOrder(o protocol.TimestampedOrder) {
	c.mu.Lock()
	c.core.SubmitOrder(o)
	c.mu.Unlock()
}

// PollTick returns the next tick whose StateUpdate arrived.
func (c *Client) PollTick() (protocol.TickOrders, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.PollTick()
}

// ReportSyncHash does nothing: the server is authoritative, and the
// MatchEnd carries the hash of each client's view instead.
func (c *Client) ReportSyncHash(tick, hash uint64) {}

// Status reports where the client is in the match.
func (c *Client) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// Diagnostics reports the transport figures.
func (c *Client) Diagnostics() Diagnostics {
	st := c.conn.Stats()
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.core.Counters()
	return Diagnostics{Tick: c.lastTick, RTT: st.RTT, Loss: st.LossPercent / 100, OrdersSent: int(k.OrdersSent),
		BytesSent: st.BytesSent, BytesReceived: st.BytesReceived}
}

// FogDiagnostics reports the fog-specific figures.
func (c *Client) FogDiagnostics() FogDiagnostics {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.core.Counters()
	d := FogDiagnostics{EntitiesTracked: k.EntitiesTracked, UpdatesReceived: k.UpdatesReceived, VisibilityRecomputeUs: c.applyUs, Counters: k}
	if s := c.cfg.Clock().Sub(c.began).Seconds(); s > 0 {
		d.BandwidthKbps = float64(c.bytesDown) / 1024 / s
	}
	return d
}

// Ticked returns a channel that receives a value after a new tick
// arrived.
func (c *Client) Ticked() <-chan struct{} { return c.ticked }

// Ended is closed when the connection has ended (after the MatchEnd, or
// lost).
func (c *Client) Ended() <-chan struct{} { return c.done }

// Over is closed when the MatchEnd arrived: the match is over, whether
// or not the server has closed the connection yet.
func (c *Client) Over() <-chan struct{} { return c.over }

// Err is why the connection ended (nil while it is up): the transport's
// error, wrapped in join.ErrIdle if the server went silent.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.endErr
}

// isClosed reports whether ch is closed; only its closer calls it.
func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// End returns the MatchEnd and whether the partial world equalled the
// server's truth of the view when it arrived.
func (c *Client) End() (end fogauth.MatchEnd, consistent, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.End()
}

// WithWorld calls f with the partial world under the client's lock.
func (c *Client) WithWorld(f func(w *fogauth.PartialWorld)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(c.core.World())
}

// Leave leaves the match like Close, but first tells the server the
// player is done (join.Leave) and waits, until ctx is done or the server
// closes the connection, for the match's certified result: it returns it
// (nil and why if none came) and keeps it (Certificate).
func (c *Client) Leave(ctx context.Context) ([]byte, error) {
	c.cancel()
	c.wg.Wait()
	c.idle.Stop()
	cert, err := c.end.Leave(ctx, c.conn)
	c.Close()
	return cert, err
}

// Certificate is the match's certified result (join.MatchResult), or nil
// before it arrives.
func (c *Client) Certificate() []byte { return c.end.Certificate() }

// Close closes the connection and waits for the goroutines.
func (c *Client) Close() error {
	err := c.conn.Close()
	c.cancel()
	c.wg.Wait()
	c.idle.Stop()
	return err
}
