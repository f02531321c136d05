// Package echoclient is the client of the echo network model over a
// tickwire connection (Join, Say, Receive) and the bots that play it
// (RunBots): the engine of "tickwire demo --mode echo" and "tickwire bot
// --mode echo". Package echo's documentation walks through it.
package echoclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/tickwire/tickwire/examples/echo"
	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// ErrRefused is the error of a join the server refused.
var ErrRefused = errors.New("echoclient: join refused")

// Client is a seat in an echo room over a tickwire connection.
type Client struct {
	conn    *transport.Conn
	player  protocol.PlayerID
	players int // the room's, from its Start
}

// Join joins room, a room of roomSize players of the echo model, over
// conn and waits for the room's Start (every seat taken). On failure it
// closes conn.
func Join(ctx context.Context, conn *transport.Conn, roomName string, roomSize int) (*Client, error) {
	player, err := joinRoom(ctx, conn, roomName, roomSize)
	if err != nil {
		conn.Close()
		return nil, err
	}
	c := &Client{conn: conn, player: player}
	for c.players == 0 {
		tm, err := conn.Receive(ctx)
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("echoclient: waiting for room %q to start: %w", roomName, err)
		}
		if s, err := echo.ParseStart(tm.Data); err == nil {
			c.players = int(s.Players)
		}
	}
	return c, nil
}

// joinRoom runs the server's join exchange: a JoinRoom naming the echo
// model, answered by JoinAccepted (the seat) or JoinRefused.
func joinRoom(ctx context.Context, conn *transport.Conn, roomName string, roomSize int) (protocol.PlayerID, error) {
	var codec msg.Codec
	b, err := codec.Append(nil, &msg.JoinRoom{Room: roomName, RoomSize: uint8(roomSize), NetworkModel: echo.ModelName})
	if err == nil {
		err = conn.Send(lanes.Orders, b)
	}
	if err != nil {
		return 0, err
	}
	conn.Flush()
	for {
		tm, err := conn.Receive(ctx)
		if err != nil {
			return 0, fmt.Errorf("echoclient: joining room %q: %w", roomName, err)
		}
		m, err := codec.Decode(tm.Data)
		if err != nil {
			return 0, fmt.Errorf("echoclient: joining room %q: %w", roomName, err)
		}
		switch m := m.(type) {
		case *msg.JoinRefused:
			return 0, fmt.Errorf("%w: %v: %s", ErrRefused, m.Reason, m.Detail)
		case *msg.JoinAccepted:
			if m.NetworkModel != echo.ModelName {
				return 0, fmt.Errorf("echoclient: seated in a %q room", m.NetworkModel)
			}
			return m.Player, nil
		}
	}
}

// Player is the client's seat.
func (c *Client) Player() protocol.PlayerID { return c.player }

// Players is the room's size.
func (c *Client) Players() int { return c.players }

// Conn is the client's connection (for its statistics).
func (c *Client) Conn() *transport.Conn { return c.conn }

// Say sends m to the room, now.
func (c *Client) Say(m *echo.Say) error {
	b, err := m.Append(nil)
	if err != nil {
		return err
	}
	if err := c.conn.Send(lanes.Orders, b); err != nil {
		return err
	}
	c.conn.Flush()
	return nil
}

// Receive waits for the room's next Echo. A message that is not an
// Echo is an error wrapping echo.ErrMessage; the connection stays usable.
func (c *Client) Receive(ctx context.Context) (echo.Echo, error) {
	tm, err := c.conn.Receive(ctx)
	if err != nil {
		return echo.Echo{}, err
	}
	return echo.ParseEcho(tm.Data)
}

// Close closes the connection gracefully: what is queued is delivered
// first, and the room sees the seat leave.
func (c *Client) Close() error { return c.conn.Close() }
