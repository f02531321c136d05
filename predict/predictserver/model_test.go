package predictserver_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/predict/lanes"
	"github.com/tickwire/tickwire/predict/predictserver"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/sim/action"
	"github.com/tickwire/tickwire/transport"
)

// TestRoomServesThroughTheSeam runs a prediction room as the server
// would: a seat's messages come through the Inbox, the room answers on
// the seat's connection, and the room ends when its last seat is gone.
func TestRoomServesThroughTheSeam(t *testing.T) {
	model := predictserver.Model(predictserver.Config{NewGame: func(string, int) predict.Game {
		return actiongame.New(action.Config{}, 1)
	}})
	if model.Name != room.Prediction {
		t.Fatalf("model %q", model.Name)
	}
	client, srvConn, err := transport.Pipe(t.Context(), transport.Config{Channels: lanes.Channels()})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	defer srvConn.Close()
	epoch := time.Now()
	inbox := room.NewInbox()
	r, err := model.New(room.Params{Name: "r", Seats: []room.Seat{{Player: 1, Conn: srvConn}}, Inbox: inbox, TickRate: 60,
		Clock: func() time.Duration { return time.Since(epoch) }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		CloseSeat: func(int, string) {}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background()) }()

	ping, _ := (&predict.Ping{ClientTimeUs: 7}).Append(nil)
	inbox.Post(room.Inbound{Seat: 0, At: time.Since(epoch), Msg: transport.Message{Channel: lanes.Channel(predict.LaneSequenced), Data: ping}})
	seen := map[string]bool{}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for !(seen["hello"] && seen["pong"] && seen["snapshot"]) {
		m, err := client.Receive(ctx)
		if err != nil {
			t.Fatalf("after %v: %v", seen, err)
		}
		typ, _ := predict.TypeOf(m.Data)
		switch {
		case typ == predict.TypeHello && m.Channel == lanes.Channel(predict.LaneReliable):
			seen["hello"] = true
		case typ == predict.TypePong && m.Channel == lanes.Channel(predict.LaneSequenced):
			seen["pong"] = true
		case typ == predict.TypeSnapshot && m.Channel == lanes.Channel(predict.LaneUnreliable):
			seen["snapshot"] = true
		}
	}
	// The room publishes its status after sending what a tick produced.
	for r.Status().Tick == 0 {
		if ctx.Err() != nil {
			t.Fatalf("status %+v", r.Status())
		}
		time.Sleep(time.Millisecond)
	}
	if st := r.Status(); st.Phase != "playing" {
		t.Fatalf("status %+v", st)
	}
	inbox.Post(room.Inbound{Seat: 0, At: time.Since(epoch), Err: errors.New("gone")})
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the room did not end when its last seat left")
	}
	var ticks float64
	for _, m := range model.Metrics() {
		if m.Name == "tickwire_prediction_ticks_total" {
			ticks = m.Value
		}
	}
	if ticks == 0 {
		t.Fatal("no ticks in the model's metrics")
	}
}
