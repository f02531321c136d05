package rendezvous

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"
)

// expireEvery is how often Serve forgets expired codes when idle.
const expireEvery = time.Second

// Service serves a Server on a socket: the thin shell around the core.
type Service struct {
	// Logger receives refusals, at most one line a second per cause
	// (with the count since the last line); nil discards.
	Logger *slog.Logger

	mu  sync.Mutex
	srv *Server
	// logged is each cause's count at its last line, loggedAt its time.
	logged   Refusals
	loggedAt [NumReasons]time.Time
}

// NewService returns a Service for a Server configured by cfg.
func NewService(cfg ServerConfig) *Service { return &Service{srv: NewServer(cfg)} }

// Stats are a Service's counts.
type Stats struct {
	Codes, Clients int
	// Refused counts refused datagrams by cause (ReasonLabel).
	Refused Refusals
}

// Stats reports the codes held, the addresses rate-limited and the
// refusals.
func (s *Service) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	refused, _ := s.srv.Refused()
	return Stats{Codes: s.srv.Codes(), Clients: s.srv.Clients(), Refused: refused}
}

// logRefusals logs the causes refused since their last line, each at
// most once a second; s.mu held.
func (s *Service) logRefusals(now time.Time) {
	if s.Logger == nil {
		return
	}
	refused, from := s.srv.Refused()
	for r := range NumReasons {
		if refused[r] == s.logged[r] || now.Sub(s.loggedAt[r]) < time.Second {
			continue
		}
		s.Logger.Warn("rendezvous: refused", "reason", ReasonLabel(r), "count", refused[r]-s.logged[r], "last_from", from[r])
		s.logged[r], s.loggedAt[r] = refused[r], now
	}
}

// Serve answers datagrams on pc until ctx ends or pc fails; it closes pc.
func (s *Service) Serve(ctx context.Context, pc net.PacketConn) error {
	stop := context.AfterFunc(ctx, func() { pc.Close() })
	defer stop()
	defer pc.Close()
	buf := make([]byte, 1<<16)
	var out []Datagram
	for {
		pc.SetReadDeadline(time.Now().Add(expireEvery))
		n, from, err := pc.ReadFrom(buf)
		now := time.Now()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				s.mu.Lock()
				s.srv.Expire(now)
				s.logRefusals(now)
				s.mu.Unlock()
				continue
			}
			if ctx.Err() != nil && errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		src, err := addrPortOf(from)
		if err != nil {
			continue
		}
		s.mu.Lock()
		out = s.srv.Handle(now, src, buf[:n], out[:0])
		s.logRefusals(now)
		s.mu.Unlock()
		for _, d := range out {
			pc.WriteTo(d.Data, net.UDPAddrFromAddrPort(d.To))
		}
	}
}
