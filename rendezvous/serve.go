package rendezvous

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// expireEvery is how often Serve forgets expired codes when idle.
const expireEvery = time.Second

// Service serves a Server on a socket: the thin shell around the core.
type Service struct {
	mu  sync.Mutex
	srv *Server
}

// NewService returns a Service for a Server configured by cfg.
func NewService(cfg ServerConfig) *Service { return &Service{srv: NewServer(cfg)} }

// Stats are a Service's counts.
type Stats struct {
	Codes, Clients int
}

// Stats reports the codes held and the addresses rate-limited.
func (s *Service) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Codes: s.srv.Codes(), Clients: s.srv.Clients()}
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
		s.mu.Unlock()
		for _, d := range out {
			pc.WriteTo(d.Data, net.UDPAddrFromAddrPort(d.To))
		}
	}
}
