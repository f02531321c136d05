package room_test

import (
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// lane is the reliable lane of the driver tests: small enough that a peer
// that stops reading backs it up within a few ticks.
const lane = 1

func pipeConfig() transport.Config {
	return transport.Config{MaxReceiveBuffer: 1, Channels: []transport.ChannelConfig{{ID: lane, Name: "orders",
		Reliability: transport.ReliableOrdered, Priority: transport.Critical, BufferLimit: 8 << 10, MaxUnackedBytes: 8 << 10}}}
}

// counter is a Core that sends every seat a numbered 1 KiB message per
// tick, every 10 ms, and records the seats' ends.
type counter struct {
	next  time.Duration
	n     uint32
	out   []room.Envelope
	ended map[int]error
	stop  bool
}

func (c *counter) Handle(_ time.Duration, in *room.Inbound) {
	if in.Err != nil {
		c.ended[in.Seat] = in.Err
	}
}

func (c *counter) Tick(now time.Duration) {
	for now >= c.next {
		c.next += 10 * time.Millisecond
		c.n++
		b := make([]byte, 1024)
		binary.LittleEndian.PutUint32(b, c.n)
		c.out = append(c.out, room.Envelope{Broadcast: true, Lane: lane, Data: b})
	}
}

func (c *counter) HasReady() bool              { return len(c.out) > 0 }
func (c *counter) Ready() room.Ready           { return room.Ready{Messages: c.out} }
func (c *counter) Advance()                    { c.out = c.out[:0] }
func (c *counter) Next() (time.Duration, bool) { return c.next, true }
func (c *counter) Done() bool                  { return c.stop || len(c.ended) == 2 }
func (c *counter) Status(time.Duration) room.Status {
	return room.Status{Phase: "counting", Tick: uint64(c.n)}
}
func (c *counter) End(time.Duration) {}

// driverRig is a driver with two seats on in-memory pipes: seat 0's peer
// is the test's to read or not, seat 1's peer reads everything.
type driverRig struct {
	d        *room.Driver
	core     *counter
	peers    [2]*transport.Conn
	counters room.Counters
	logs     strings.Builder
	mu       sync.Mutex
	closed   map[int]string
	got1     []uint32 // what seat 1's peer received, in order
	done     chan error
	cancel   context.CancelFunc
}

func newDriverRig(t *testing.T) *driverRig {
	r := &driverRig{core: &counter{ended: map[int]error{}}, closed: map[int]string{}, done: make(chan error, 1)}
	var seats []room.Seat
	for i := range 2 {
		peer, conn, err := transport.Pipe(t.Context(), pipeConfig())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { peer.Close(); conn.Close() })
		r.peers[i] = peer
		seats = append(seats, room.Seat{Player: 1, Conn: conn})
	}
	epoch := time.Now()
	p := room.Params{Name: "r", Seats: seats, Inbox: room.NewInbox(), TickRate: 100,
		Clock: func() time.Duration { return time.Since(epoch) }, Logger: slog.New(slog.NewTextHandler(&r.logs, nil)),
		Counters: &r.counters, CloseSeat: func(i int, reason string) {
			r.mu.Lock()
			r.closed[i] = reason
			r.mu.Unlock()
			go seats[i].Conn.CloseWithReason(reason)
		}}
	r.d = room.NewDriver(p, r.core)
	go func() {
		for {
			m, err := r.peers[1].Receive(context.Background())
			if err != nil {
				return
			}
			r.mu.Lock()
			r.got1 = append(r.got1, binary.LittleEndian.Uint32(m.Data))
			r.mu.Unlock()
		}
	}()
	var ctx context.Context
	ctx, r.cancel = context.WithCancel(context.Background())
	go func() { r.done <- r.d.Run(ctx) }()
	return r
}

func (r *driverRig) stop() {
	r.cancel()
	<-r.done
}

// inOrder checks that got counts 1, 2, 3, … without a gap.
func inOrder(t *testing.T, who string, got []uint32) {
	t.Helper()
	for i, n := range got {
		if n != uint32(i+1) {
			t.Fatalf("%s: message %d is number %d: a reliable message was lost or reordered", who, i+1, n)
		}
	}
}

// TestDriverKeepsBacklogInOrder: a peer that stops reading for less than
// room.SendGrace is kept; what its reliable lane refused meanwhile waits
// in the driver's backlog and arrives, in order, without a gap, once it
// reads again.
func TestDriverKeepsBacklogInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newDriverRig(t)
		time.Sleep(room.SendGrace / 2) // seat 0 reads nothing
		if r.counters.SendErrors[room.SendBackpressure].Load() == 0 {
			t.Fatal("the lane never refused: the test does not reach the backlog")
		}
		var got0 []uint32
		for len(got0) < 100 {
			m, err := r.peers[0].Receive(t.Context())
			if err != nil {
				t.Fatalf("seat 0 after %d messages: %v", len(got0), err)
			}
			got0 = append(got0, binary.LittleEndian.Uint32(m.Data))
		}
		go func() {
			for {
				if _, err := r.peers[0].Receive(context.Background()); err != nil {
					return
				}
			}
		}()
		time.Sleep(2 * room.SendGrace)
		r.stop()
		inOrder(t, "seat 0", got0)
		r.mu.Lock()
		inOrder(t, "seat 1", r.got1)
		r.mu.Unlock()
		if n := r.counters.TooSlow.Load(); n != 0 || len(r.closed) != 0 || len(r.core.ended) != 0 {
			t.Fatalf("a peer back within the grace was dropped: %d, %v, %v", n, r.closed, r.core.ended)
		}
	})
}

// TestDriverDropsSlowSeat: a peer that stops reading for good is dropped
// once backed up for room.SendGrace, with ErrTooSlow's reason, told to
// the core, counted and logged once; the other seat receives everything
// in order, before and after.
func TestDriverDropsSlowSeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newDriverRig(t)
		time.Sleep(room.SendGrace + room.CheckInterval + 10*time.Millisecond)
		r.mu.Lock()
		reason, closed := r.closed[0]
		before := len(r.got1)
		r.mu.Unlock()
		if !closed || !strings.HasPrefix(reason, room.ErrTooSlow.Error()) {
			t.Fatalf("seat 0 not closed for backpressure: %v", r.closed)
		}
		if !errors.Is(r.core.ended[0], room.ErrTooSlow) {
			t.Fatalf("the core was told %v", r.core.ended)
		}
		time.Sleep(time.Second)
		r.stop()
		r.mu.Lock()
		defer r.mu.Unlock()
		if len(r.got1) < before+90 {
			t.Fatalf("seat 1 received %d messages in the second after the drop", len(r.got1)-before)
		}
		inOrder(t, "seat 1", r.got1)
		if _, ok := r.closed[1]; ok || r.counters.TooSlow.Load() != 1 {
			t.Fatalf("closed %v, %d counted", r.closed, r.counters.TooSlow.Load())
		}
		if n := strings.Count(r.logs.String(), "seat too slow"); n != 1 {
			t.Fatalf("%d log lines about the slow seat:\n%s", n, r.logs.String())
		}
	})
}

// script is a Core that sends, once, the envelopes it holds.
type script struct {
	out  []room.Envelope
	sent bool
}

func (s *script) Handle(time.Duration, *room.Inbound) {}
func (s *script) Tick(time.Duration)                  {}
func (s *script) HasReady() bool                      { return !s.sent }
func (s *script) Ready() room.Ready                   { return room.Ready{Messages: s.out} }
func (s *script) Advance()                            { s.sent = true }
func (s *script) Next() (time.Duration, bool)         { return 0, false }
func (s *script) Done() bool                          { return s.sent }
func (s *script) Status(time.Duration) room.Status    { return room.Status{} }
func (s *script) End(time.Duration)                   {}

// TestDriverSendErrors: every failed send is counted by cause; a failure
// other than backpressure is logged once per cause and room, whatever its
// number; backpressure is never logged per send (the message waits in the
// seat's backlog).
func TestDriverSendErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := pipeConfig()
		cfg.Channels[0].MaxMessageSize, cfg.Channels[0].AllowFragmentation = 16<<10, true
		live, livePeer, err := transport.Pipe(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer livePeer.Close()
		defer live.Close()
		ended, endedPeer, err := transport.Pipe(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		endedPeer.Close()
		ended.Close()
		small, tooLarge, big := make([]byte, 10), make([]byte, 16<<10+1), make([]byte, 8<<10)
		core := &script{out: []room.Envelope{
			{Seat: 1, Lane: lane, Data: small}, {Seat: 1, Lane: lane, Data: small}, {Seat: 1, Lane: lane, Data: small}, // ended
			{Seat: 0, Lane: lane, Data: tooLarge}, {Seat: 0, Lane: lane, Data: tooLarge},
			{Seat: 0, Lane: lane, Data: big}, {Seat: 0, Lane: lane, Data: big}, {Seat: 0, Lane: lane, Data: big}, // backpressure
		}}
		var logs strings.Builder
		var counters room.Counters
		p := room.Params{Seats: []room.Seat{{Player: 1, Conn: live}, {Player: 2, Conn: ended}}, Inbox: room.NewInbox(),
			Clock: func() time.Duration { return 0 }, Logger: slog.New(slog.NewTextHandler(&logs, nil)), Counters: &counters}
		if err := room.NewDriver(p, core).Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		got := [room.NumSendCauses]uint64{}
		for i := range got {
			got[i] = counters.SendErrors[i].Load()
		}
		if want := [room.NumSendCauses]uint64{room.SendClosed: 3, room.SendTooLarge: 2, room.SendBackpressure: 1}; got != want {
			t.Errorf("send errors %v, want %v", got, want)
		}
		if n := strings.Count(logs.String(), "room: send failed"); n != 2 {
			t.Errorf("%d send failures logged, want one per cause other than backpressure (2):\n%s", n, logs.String())
		}
	})
}

// TestDriverUnknownSeats: a message the Core addresses to a seat the room
// never had is dropped, and an Inbound about a seat past the known ones
// extends the table instead of indexing out of it; the seat that exists
// still gets its message.
func TestDriverUnknownSeats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		conn, peer, err := transport.Pipe(t.Context(), pipeConfig())
		if err != nil {
			t.Fatal(err)
		}
		defer peer.Close()
		defer conn.Close()
		core := &script{out: []room.Envelope{
			{Seat: 1, Lane: lane, Data: []byte("nobody")}, {Seat: 2, Lane: lane, Data: []byte("nobody")},
			{Seat: 3, Lane: lane, Data: []byte("nobody")},
			{Seat: -1, Lane: lane, Data: []byte("nobody")}, {Seat: 0, Lane: lane, Data: []byte("player")},
		}}
		var counters room.Counters
		in := room.NewInbox()
		in.Post(room.Inbound{Seat: 1, Err: room.ErrLeft})
		p := room.Params{Seats: []room.Seat{{Player: 1, Conn: conn}}, Inbox: in,
			Clock: func() time.Duration { return 0 }, Counters: &counters}
		if err := room.NewDriver(p, core).Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := counters.MessagesOut.Load(); n != 1 {
			t.Errorf("%d messages out, want the one to seat 0", n)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		data, err := peer.Receive(ctx)
		if err != nil || string(data.Data) != "player" {
			t.Errorf("seat 0 received %q, %v", data.Data, err)
		}
	})
}
