// Package echoclient is the client of the echo network model over a
// tickwire connection (Join, Say, Receive) and the bots that play it
// (RunBots): the engine of "tickwire demo --mode echo" and "tickwire bot
// --mode echo". Package echo's documentation walks through it.
package echoclient

import (
	"context"
	"fmt"

	"github.com/tickwire/tickwire/examples/echo"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// Client is a seat in an echo room over a tickwire connection.
type Client struct {
	conn    *transport.Conn
	player  protocol.PlayerID
	players int         // the room's, from its Start
	end     join.Ending // the match's certified result, when it comes
}

// Join joins room, a room of roomSize players of the echo model, over
// conn with the server's join exchange (server/join's Join: a refusal is
// a *join.JoinError) and waits for the room's Start (every seat taken).
// On failure it closes conn.
func Join(ctx context.Context, conn *transport.Conn, roomName string, roomSize int) (*Client, error) {
	seat, err := join.Join(ctx, conn, join.Request{Room: roomName, RoomSize: roomSize, NetworkModel: echo.ModelName})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("echoclient: %w", err)
	}
	c := &Client{conn: conn, player: seat.Player}
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
	for {
		tm, err := c.conn.Receive(ctx)
		if err != nil {
			return echo.Echo{}, err
		}
		if !c.end.Keep(tm.Data) { // the server's certified result is not the model's
			return echo.ParseEcho(tm.Data)
		}
	}
}

// Leave tells the server the player is done (join.Leave), waits until
// ctx is done or the server closes the connection for the match's
// certified result, which it returns, and closes the connection. An echo
// match ends when its last player goes.
func (c *Client) Leave(ctx context.Context) ([]byte, error) {
	defer c.Close()
	return c.end.Leave(ctx, c.conn)
}

// Close closes the connection gracefully: what is queued is delivered
// first, and the room sees the seat leave.
func (c *Client) Close() error { return c.conn.Close() }
