package echoserver_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/tickwire/tickwire/examples/echo"
	"github.com/tickwire/tickwire/examples/echo/echoserver"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// TestRoomThroughTheSeam runs an echo room as the server would: every
// seat is sent a Start, a Say posted to the Inbox comes back to both
// seats with its sender, a seat's end leaves the other playing, and the
// room ends with its last seat.
func TestRoomThroughTheSeam(t *testing.T) {
	model := echoserver.Model(echoserver.Config{})
	if model.Name != echo.ModelName || model.MaxRoomSize != echoserver.DefaultMaxRoomSize {
		t.Fatalf("model %q of %d", model.Name, model.MaxRoomSize)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var clients []*transport.Conn
	var seats []room.Seat
	for i := range 2 {
		c, s, err := transport.Pipe(ctx, transport.Config{Channels: lanes.Channels()})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		defer s.Close()
		clients, seats = append(clients, c), append(seats, room.Seat{Player: protocol.PlayerID(i + 1), Conn: s})
	}
	inbox := room.NewInbox()
	r, err := model.New(room.Params{Name: "r", Seats: seats, Inbox: inbox, Clock: func() time.Duration { return 0 },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), CloseSeat: func(int, string) {}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	for i, c := range clients {
		m, err := c.Receive(ctx)
		if s, perr := echo.ParseStart(m.Data); err != nil || perr != nil || s.Players != 2 {
			t.Fatalf("client %d: Start %+v, %v %v", i, s, err, perr)
		}
	}
	say, _ := (&echo.Say{Seq: 1, Text: []byte("hello")}).Append(nil)
	inbox.Post(room.Inbound{Seat: 1, Msg: transport.Message{Channel: lanes.Orders, Data: say}})
	for i, c := range clients {
		m, err := c.Receive(ctx)
		if e, perr := echo.ParseEcho(m.Data); err != nil || perr != nil || e.From != 2 || string(e.Text) != "hello" {
			t.Fatalf("client %d: Echo %+v, %v %v", i, e, err, perr)
		}
	}
	inbox.Post(room.Inbound{Seat: 0, Err: errors.New("gone")})
	inbox.Post(room.Inbound{Seat: 1, Msg: transport.Message{Channel: lanes.Orders, Data: say}})
	m, err := clients[1].Receive(ctx)
	if e, perr := echo.ParseEcho(m.Data); err != nil || perr != nil || e.From != 2 {
		t.Fatalf("after a seat left: %+v, %v %v", e, err, perr)
	}
	inbox.Post(room.Inbound{Seat: 1, Err: errors.New("gone")})
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}
