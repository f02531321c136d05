package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/relay"
	"github.com/tickwire/tickwire/relay/msg"
	"github.com/tickwire/tickwire/transport"
)

// ErrClosed is returned by Serve and ServeConn once the server is closed.
var ErrClosed = errors.New("relay/server: server closed")

// Server hosts relay games in named rooms. Its methods are safe for
// concurrent use.
type Server struct {
	cfg      Config
	clock    func() time.Duration
	codec    msg.Codec
	counters counters

	ctx    context.Context // the lifetime of the rooms
	cancel context.CancelFunc
	wg     sync.WaitGroup // room drivers, readers, closing connections

	mu     sync.Mutex
	rooms  map[string]*room
	closed bool
}

// New returns a server with cfg. It starts nothing until Serve or
// ServeConn.
func New(cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, clock: cfg.Clock, rooms: make(map[string]*room)}
	if s.clock == nil {
		epoch := time.Now()
		s.clock = func() time.Duration { return time.Since(epoch) }
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
// connection. It returns once the connection is seated or refused; the
// room owns a seated connection from then on. ctx bounds only the join.
func (s *Server) ServeConn(ctx context.Context, c *transport.Conn) error {
	jctx, cancel := context.WithTimeout(ctx, s.cfg.JoinTimeout)
	tm, err := c.Receive(jctx)
	cancel()
	if err != nil {
		s.closeConn(c, "no join request")
		return fmt.Errorf("relay/server: waiting for JoinRoom: %w", err)
	}
	m, err := s.codec.Decode(tm.Data)
	j, ok := m.(*msg.JoinRoom)
	if err != nil {
		s.counters.countMalformed(err)
	}
	if !ok {
		return s.refuse(c, msg.RefuseBadRequest, "the first message must be JoinRoom")
	}
	if int(j.RoomSize) > relay.MaxPlayers {
		return s.refuse(c, msg.RefuseBadRequest, fmt.Sprintf("a game has at most %d players", relay.MaxPlayers))
	}
	if detail := s.admitToken(c, j.Room); detail != "" {
		return s.refuseToken(c, detail)
	}
	r, mem, reason, detail := s.join(c, j)
	if r == nil {
		return s.refuse(c, reason, detail)
	}
	if err := s.send(c, &msg.JoinAccepted{Player: mem.id, RoomSize: uint8(r.size), TickRate: uint16(s.cfg.TickRate)}); err != nil {
		r.post(event{m: mem, err: err})
		return err
	}
	c.Flush()
	s.cfg.Logger.Info("relay: player joined", "room", r.name, "player", mem.id, "peer", c.RemoteAddr())
	s.wg.Add(1)
	go r.read(mem)
	r.post(event{m: mem, joined: true})
	return nil
}

// ErrRefused wraps the reason a join was refused.
var ErrRefused = errors.New("relay/server: join refused")

func (s *Server) refuse(c *transport.Conn, reason msg.RefusalReason, detail string) error {
	s.counters.joinsRefused.Add(1)
	if len(detail) > msg.MaxRefusalDetail {
		detail = detail[:msg.MaxRefusalDetail]
	}
	s.send(c, &msg.JoinRefused{Reason: reason, Detail: detail})
	s.closeConn(c, "join refused: "+reason.String())
	return fmt.Errorf("%w: %v: %s", ErrRefused, reason, detail)
}

// send encodes m and queues it on its lane.
func (s *Server) send(c *transport.Conn, m msg.Message) error {
	b, err := s.codec.Append(nil, m)
	if err != nil {
		return err
	}
	s.counters.messagesOut.Add(1)
	return c.Send(Lane(m), b)
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

// join seats c in the room j names, creating the room if needed. It
// returns the room and the seat, or a refusal.
func (s *Server) join(c *transport.Conn, j *msg.JoinRoom) (*room, *member, msg.RefusalReason, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, msg.RefuseShutdown, "the relay is shutting down"
	}
	r := s.rooms[j.Room]
	if r == nil {
		if s.cfg.MaxGames > 0 && len(s.rooms) >= s.cfg.MaxGames {
			return nil, nil, msg.RefuseServerFull, fmt.Sprintf("the relay hosts its limit of %d games", s.cfg.MaxGames)
		}
		r = s.newRoom(j.Room, int(j.RoomSize))
		s.rooms[j.Room] = r
		s.wg.Add(1)
		go r.run()
	}
	if r.size != int(j.RoomSize) {
		return nil, nil, msg.RefuseSizeMismatch, fmt.Sprintf("room %q is for %d players, not %d", r.name, r.size, j.RoomSize)
	}
	if r.started || r.seated == r.size {
		return nil, nil, msg.RefuseRoomFull, fmt.Sprintf("room %q has all its %d players", r.name, r.size)
	}
	i := 0
	for r.members[i] != nil {
		i++
	}
	m := &member{id: protocol.PlayerID(i + 1), conn: c}
	r.members[i] = m
	r.seated++
	if r.seated == r.size {
		r.started = true
	}
	return r, m, 0, ""
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
