package room_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// quitter is a Core that ends when seat 1 sends anything; it records
// what reached it.
type quitter struct {
	msgs  map[int]int
	ended map[int]error
	stop  bool
}

func (q *quitter) Handle(_ time.Duration, in *room.Inbound) {
	switch {
	case in.Err != nil:
		q.ended[in.Seat] = in.Err
	case in.Seat == 1:
		q.stop = true
		fallthrough
	default:
		q.msgs[in.Seat]++
	}
}
func (q *quitter) Tick(time.Duration)          {}
func (q *quitter) HasReady() bool              { return false }
func (q *quitter) Ready() room.Ready           { return room.Ready{} }
func (q *quitter) Advance()                    {}
func (q *quitter) Next() (time.Duration, bool) { return 0, false }
func (q *quitter) Done() bool                  { return q.stop }
func (q *quitter) Status(time.Duration) room.Status {
	return room.Status{Phase: "over", Tick: 42}
}
func (q *quitter) End(time.Duration) {}

// TestDriverSendsResult: when the match ends the driver sends
// Params.Result's message, made of the final status, to the seats still
// open and to those that left (ErrLeft), players and spectators alike
// (seats 3 and 4 joined during the match: one watches to the end, one
// leaves), not to a seat whose connection ended; what a player sends
// after leaving never reaches the Core.
func TestDriverSendsResult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var peers []*transport.Conn
		var seats []room.Seat
		for i := range 5 {
			peer, conn, err := transport.Pipe(t.Context(), lanes.TransportConfig())
			if err != nil {
				t.Fatal(err)
			}
			defer peer.Close()
			defer conn.Close()
			peers = append(peers, peer)
			seats = append(seats, room.Seat{Player: protocol.PlayerID(i + 1), Conn: conn})
		}
		spectators := seats[3:]
		seats = seats[:3]
		in := room.NewInbox()
		var final room.Status
		calls := 0
		p := room.Params{Name: "r", Seats: seats, Inbox: in, TickRate: 10, Clock: func() time.Duration { return 0 },
			Result: func(st room.Status) []byte { calls++; final = st; return []byte("result") }}
		q := &quitter{msgs: map[int]int{}, ended: map[int]error{}}
		d := room.NewDriver(p, q)
		done := make(chan error, 1)
		go func() { done <- d.Run(context.Background()) }()

		for i := range spectators {
			in.Post(room.Inbound{Seat: 3 + i, Joined: &room.Seat{Conn: spectators[i].Conn}})
		}
		in.Post(room.Inbound{Seat: 4, Err: room.ErrLeft})
		in.Post(room.Inbound{Seat: 0, Err: room.ErrLeft})
		in.Post(room.Inbound{Seat: 0, Msg: transport.Message{Channel: lanes.Orders, Data: []byte("late")}})
		in.Post(room.Inbound{Seat: 2, Err: errors.New("connection lost")})
		synctest.Wait()
		in.Post(room.Inbound{Seat: 1, Msg: transport.Message{Channel: lanes.Orders, Data: []byte("done")}})
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if calls != 1 || final.Tick != 42 || final.Phase != "over" {
			t.Fatalf("Result called %d times with %+v", calls, final)
		}
		if q.msgs[0] != 0 || !errors.Is(q.ended[0], room.ErrLeft) {
			t.Fatalf("seat 0 left, yet the core saw %d messages from it (ended: %v)", q.msgs[0], q.ended[0])
		}
		for _, i := range []int{0, 1, 3, 4} {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			m, err := peers[i].Receive(ctx)
			cancel()
			if err != nil || string(m.Data) != "result" || m.Channel != lanes.Orders {
				t.Errorf("seat %d: %q on %d, %v; want the result on the orders lane", i, m.Data, m.Channel, err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if m, err := peers[2].Receive(ctx); err == nil {
			t.Errorf("seat 2, whose connection ended, got %q", m.Data)
		}
	})
}
