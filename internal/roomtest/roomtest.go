// Package roomtest runs one network model in a real server (package
// server) on an in-memory network, with clients that join by hand, for
// the tests every model shares: above all the backpressure case of the
// room driver (room.SendGrace), where one client stops reading and the
// others keep playing. Run it inside testing/synctest: the clocks are
// virtual.
package roomtest

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// Server is a server hosting one model, and its clients.
type Server struct {
	t     *testing.T
	model string
	mn    *netsim.MemNetwork
	tc    transport.Config
	l     *transport.Listener
	srv   *server.Server
	done  chan error
	conns []*transport.Conn
	// Logs counts the server's log records.
	Logs *Records
}

// Start starts a server whose only and default model is m; cfg's Models
// and DefaultModel are set from m, its Logger counts records.
func Start(t *testing.T, m room.Model, cfg server.Config) *Server {
	t.Helper()
	cfg.Models, cfg.DefaultModel = append(cfg.Models, m), m.Name
	return StartConfig(t, cfg)
}

// StartConfig starts a server with cfg as given (its models and default
// model), its Logger set to count records. Join uses the default model.
func StartConfig(t *testing.T, cfg server.Config) *Server {
	t.Helper()
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, model: cfg.DefaultModel, mn: netsim.NewMemNetwork(), Logs: &Records{}, done: make(chan error, 1)}
	cfg.Logger = slog.New(s.Logs)
	tc, err := cfg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	s.tc = tc
	pc, err := s.mn.ListenPacket("")
	if err != nil {
		t.Fatal(err)
	}
	if s.l, err = transport.Listen(t.Context(), pc, tc); err != nil {
		t.Fatal(err)
	}
	s.srv = server.New(cfg)
	go func() { s.done <- s.srv.Serve(context.Background(), s.l) }()
	return s
}

// Dial opens a connection to the server over a link impaired by link
// (none if zero), without joining. Close does not close it.
func (s *Server) Dial(ctx context.Context, link netsim.Config) (*transport.Conn, error) {
	return s.dial(ctx, link, s.tc)
}

func (s *Server) dial(ctx context.Context, link netsim.Config, tc transport.Config) (*transport.Conn, error) {
	mpc, err := s.mn.ListenPacket("")
	if err != nil {
		return nil, err
	}
	var pc net.PacketConn = mpc
	if link != (netsim.Config{}) {
		pc = netsim.Wrap(mpc, link)
	}
	return transport.Dial(ctx, pc, s.l.Addr(), tc)
}

// Server returns the server.
func (s *Server) Server() *server.Server { return s.srv }

// Join dials and joins room (of size players) as a player with
// server/join's Join, and returns the connection and its seat. A slow client's transport keeps at
// most one unread message: once the test stops reading it, it
// acknowledges nothing more, as a frozen client would.
func (s *Server) Join(name string, size int, slow bool) (*transport.Conn, join.Seat) {
	s.t.Helper()
	return s.JoinOver(name, size, slow, netsim.Config{})
}

// JoinOver is Join over a link impaired by link (none if zero).
func (s *Server) JoinOver(name string, size int, slow bool, link netsim.Config) (*transport.Conn, join.Seat) {
	s.t.Helper()
	tc := s.tc
	if slow {
		tc.MaxReceiveBuffer = 1
	}
	c, err := s.dial(s.t.Context(), link, tc)
	if err != nil {
		s.t.Fatal(err)
	}
	s.conns = append(s.conns, c)
	seat, err := join.Join(s.t.Context(), c, join.Request{Room: name, RoomSize: size, NetworkModel: s.model})
	if err != nil {
		s.t.Fatal(err)
	}
	return c, seat
}

// tooSlow returns the seats of the model counted too slow.
func (s *Server) tooSlow() uint64 {
	for _, m := range s.srv.Stats().Models {
		if m.Name == s.model {
			return m.TooSlow
		}
	}
	return 0
}

// ExpectTooSlow checks the policy's outcome for a slow client that
// stopped reading: the server counted one seat of its model too slow,
// logged it in at most one record, and the client, reading again, finds
// its connection closed with the policy's reason once it has read what
// was queued.
func (s *Server) ExpectTooSlow(slow *transport.Conn) {
	s.t.Helper()
	if n := s.tooSlow(); n != 1 {
		s.t.Errorf("%s: %d seats counted too slow, want 1", s.model, n)
	}
	if n := s.Logs.Matching("too slow"); n != 1 {
		s.t.Errorf("%d log records about the slow seat, want 1", n)
	}
	ctx, cancel := context.WithTimeout(s.t.Context(), time.Minute)
	defer cancel()
	for {
		_, err := slow.Receive(ctx)
		if err == nil {
			continue
		}
		if !errors.Is(err, transport.ErrPeerClosed) || !strings.Contains(err.Error(), room.ErrTooSlow.Error()) {
			s.t.Errorf("the slow client's connection ended with %v, want the server's reason %q", err, room.ErrTooSlow)
		}
		return
	}
}

// Close closes the clients and the server.
func (s *Server) Close() {
	for _, c := range s.conns {
		c.Close()
	}
	s.l.Close()
	<-s.done
	s.srv.Close()
}

// Records is a slog.Handler that keeps the records' messages: the tests
// bound the logs a misbehaving client causes.
type Records struct {
	mu    sync.Mutex
	texts []string
}

// Enabled implements slog.Handler: every level counts.
func (*Records) Enabled(context.Context, slog.Level) bool { return true }

// Handle implements slog.Handler.
func (r *Records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.texts = append(r.texts, rec.Message)
	r.mu.Unlock()
	return nil
}

// WithAttrs implements slog.Handler.
func (r *Records) WithAttrs([]slog.Attr) slog.Handler { return r }

// WithGroup implements slog.Handler.
func (r *Records) WithGroup(string) slog.Handler { return r }

// Len returns the number of records.
func (r *Records) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.texts)
}

// Matching returns the number of records whose message contains s.
func (r *Records) Matching(s string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.texts {
		if strings.Contains(m, s) {
			n++
		}
	}
	return n
}

// Reader reads a connection in the background, counting what it
// receives, until the connection ends.
type Reader struct {
	n    atomic.Int64
	done chan struct{}
	err  error
}

// Read starts reading c; each message also goes to f if set (on the
// reader's goroutine).
func Read(c *transport.Conn, f func(transport.Message)) *Reader {
	r := &Reader{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for {
			m, err := c.Receive(context.Background())
			if err != nil {
				r.err = err
				return
			}
			r.n.Add(1)
			if f != nil {
				f(m)
			}
		}
	}()
	return r
}

// Received returns the messages read so far.
func (r *Reader) Received() int64 { return r.n.Load() }

// Playing checks that the readers' connections still receive: over the
// next interval (virtual time) each gets at least one message.
func (s *Server) Playing(interval time.Duration, rs ...*Reader) {
	s.t.Helper()
	before := make([]int64, len(rs))
	for i, r := range rs {
		before[i] = r.Received()
	}
	time.Sleep(interval)
	for i, r := range rs {
		select {
		case <-r.done:
			s.t.Fatalf("a client that reads lost its connection: %v", r.err)
		default:
		}
		if r.Received() == before[i] {
			s.t.Fatalf("a client that reads received nothing in %v", interval)
		}
	}
}

// SlowClient is the backpressure case of the room driver for model m
// (run inside testing/synctest): three clients join a room, one stops
// reading at once and the two others only read. The server must drop the
// slow one after room.SendGrace with the policy's reason (ExpectTooSlow),
// the others must receive something every second before and after, and
// the whole run must log at most 20 records.
func SlowClient(t *testing.T, m room.Model) {
	t.Helper()
	s := Start(t, m, server.Config{})
	defer s.Close()
	a, _ := s.Join("r", 3, false)
	slow, _ := s.Join("r", 3, true)
	b, _ := s.Join("r", 3, false)
	ra, rb := Read(a, nil), Read(b, nil)
	for start := time.Now(); s.tooSlow() == 0; {
		if time.Since(start) > 2*room.SendGrace {
			t.Fatalf("the slow client was not dropped within %v", 2*room.SendGrace)
		}
		s.Playing(time.Second, ra, rb)
	}
	s.ExpectTooSlow(slow)
	for range 3 {
		s.Playing(time.Second, ra, rb)
	}
	if n := s.Logs.Len(); n > 20 {
		t.Errorf("%d log records", n)
	}
}

// LossyClients is the other side of SlowClient for model m (run inside
// testing/synctest): three clients that read everything, over links
// that lose 10% of the datagrams each way with 30 ms ± 10 ms of delay,
// play for 20 s and none is dropped as too slow. (These clients send
// nothing but the transport's acknowledgements, the fewest a client can:
// a sweep of 40 seeds per model passed with SendGrace at 5 s, and found
// drops at 2 s.)
func LossyClients(t *testing.T, m room.Model) {
	t.Helper()
	s := Start(t, m, server.Config{})
	defer s.Close()
	link := netsim.Link{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.1}
	var rs []*Reader
	for i := range 3 {
		c, _ := s.JoinOver("r", 3, false, netsim.Config{Seed: uint64(i + 1), In: link, Out: link})
		rs = append(rs, Read(c, nil))
	}
	for range 20 {
		s.Playing(time.Second, rs...)
	}
	for _, ms := range s.srv.Stats().Models {
		if ms.TooSlow != 0 {
			t.Errorf("%s: %d clients on a lossy link dropped as too slow", ms.Name, ms.TooSlow)
		}
	}
}
