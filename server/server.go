package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// ErrClosed is returned by Serve and ServeConn once the server is closed.
var ErrClosed = errors.New("server: server closed")

// Server hosts games in named rooms, each of one network model. Its
// methods are safe for concurrent use.
type Server struct {
	cfg      Config
	clock    func() time.Duration
	counters counters
	models   map[string]*hostedModel
	order    []string // the models' names as configured

	ctx    context.Context // the lifetime of the rooms
	cancel context.CancelFunc
	wg     sync.WaitGroup // room drivers, readers, closing connections

	mu      sync.Mutex
	rooms   map[string]*hostedRoom
	waiting map[string]int // waiting rooms by their creator's address
	closed  bool
	// draining refuses new rooms (Drain).
	draining bool
	seq      matchSeq

	joinSends sendLog // failed answers to joins, logged once per cause
}

// hostedModel is a network model and its room count (guarded by
// Server.mu).
type hostedModel struct {
	room.Model
	rooms    int
	counters room.Counters // its rooms' drivers' figures
}

// New returns a server with cfg. It starts nothing until Serve or
// ServeConn. Config.Check reports what New would quietly accept.
func New(cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, clock: cfg.Clock, rooms: make(map[string]*hostedRoom),
		waiting: make(map[string]int), models: make(map[string]*hostedModel)}
	s.counters.malformedByKind = metrics.NewByKind(malformedKinds)
	if s.clock == nil {
		epoch := time.Now()
		s.clock = func() time.Duration { return time.Since(epoch) }
	}
	for _, m := range cfg.Models {
		if _, dup := s.models[m.Name]; !dup && m.New != nil {
			s.models[m.Name] = &hostedModel{Model: m}
			s.order = append(s.order, m.Name)
		}
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s
}

// Serve accepts connections from l and seats each in the room its
// JoinRoom names. It returns when ctx is done (ctx.Err()), l is closed or
// the server is closed; games in progress keep running until Close.
func (s *Server) Serve(ctx context.Context, l *transport.Listener) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-s.ctx.Done():
			stop()
		case <-ctx.Done():
		}
	}()
	for {
		c, err := l.Accept(ctx)
		if err != nil {
			if s.ctx.Err() != nil {
				return ErrClosed
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.ServeConn(ctx, c)
		}()
	}
}

// ServeConn runs the join exchange on an established connection: it waits
// for JoinRoom (at most Config.JoinTimeout), then seats the connection in
// its room and answers JoinAccepted, or answers JoinRefused and closes the
// connection. A JoinRoom asking to spectate or rejoin is seated in a
// playing room whose model takes it (room.Model.MaxSpectators,
// room.Model.Rejoin) and handed to the running room. It returns once the connection is seated or refused; the
// room owns a seated connection from then on. ctx bounds only the join.
func (s *Server) ServeConn(ctx context.Context, c *transport.Conn) error {
	jctx, cancel := context.WithTimeout(ctx, s.cfg.JoinTimeout)
	tm, err := c.Receive(jctx)
	cancel()
	if err != nil {
		s.closeConn(c, "no join request")
		return fmt.Errorf("server: waiting for JoinRoom: %w", err)
	}
	m, err := join.Parse(tm.Data)
	j, ok := m.(*join.JoinRoom)
	if err != nil {
		s.counters.countMalformed(err)
	}
	if !ok {
		return s.refuse(c, join.RefuseBadRequest, "the first message must be JoinRoom")
	}
	if detail := s.admitToken(c, j.Room); detail != "" {
		return s.refuseToken(c, detail)
	}
	h, st, full, ref, err := s.join(c, j) // err: the JoinAccepted could not be queued
	if h == nil {
		return s.refuse(c, ref.reason, ref.detail)
	}
	if err != nil {
		s.closeConn(c, "cannot answer the join")
	}
	c.Flush()
	s.cfg.Logger.Info("relay: player joined", "room", h.name, "player", st.player, "as", j.As, "network_model", h.model.Name, "peer", c.RemoteAddr())
	if j.As != join.AsPlayer || st.late {
		s.postJoined(h, st)
	}
	s.readSeat(h, st)
	if full {
		s.start(h)
	}
	return err
}

// ErrRefused wraps the reason a join was refused.
var ErrRefused = errors.New("server: join refused")

// refusal is why a join is refused.
type refusal struct {
	reason join.RefusalReason
	detail string
}

func refuse(reason join.RefusalReason, format string, args ...any) refusal {
	return refusal{reason, fmt.Sprintf(format, args...)}
}

func (s *Server) refuse(c *transport.Conn, reason join.RefusalReason, detail string) error {
	s.counters.refused[reason].Add(1)
	if len(detail) > join.MaxRefusalDetail {
		detail = detail[:join.MaxRefusalDetail]
	}
	s.send(c, &join.JoinRefused{Reason: reason, Detail: detail}) // a failure is counted and logged
	s.closeConn(c, "join refused: "+reason.String())
	return fmt.Errorf("%w: %v: %s", ErrRefused, reason, detail)
}

// send encodes a join answer and queues it on the orders lane; a
// failure is counted and, the first of its cause, logged.
func (s *Server) send(c *transport.Conn, m join.Message) error {
	b, err := m.Append(nil)
	if err == nil {
		err = c.Send(lanes.Orders, b)
	}
	if err != nil {
		s.sendFailed(&s.joinSends, s.cfg.Logger, m, err, "peer", c.RemoteAddr())
		return err
	}
	s.counters.messagesOut.Add(1)
	return nil
}

// closeConn closes c gracefully in the background (delivering what is
// queued); Close waits for it.
func (s *Server) closeConn(c *transport.Conn, reason string) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		c.CloseWithReason(reason)
	}()
}

// addrKey is the address a per-address limit counts: the peer's IP.
func addrKey(a net.Addr) string {
	switch a := a.(type) {
	case *net.UDPAddr:
		return a.IP.String()
	case nil:
		return ""
	}
	if host, _, err := net.SplitHostPort(a.String()); err == nil {
		return host
	}
	return a.String()
}

// Close ends every game, closes their connections and waits for the
// server's goroutines. Serve and ServeConn refuse from then on.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	return nil
}
