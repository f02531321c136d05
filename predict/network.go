package predict

import (
	"slices"
	"time"
)

// Network is a client's connection to a prediction room, the seed's
// INetworkLayer: Send carries the client's encoded messages to the server
// and Poll hands over every server message that has arrived. Loopback runs
// the room in process; package predict/netlayer has the remote one, over
// a tickwire transport connection. A Session drives a Client over either
// the same way.
type Network interface {
	Send(now time.Duration, lane Lane, msg []byte) error
	// Poll calls deliver for each message arrived by now, in order. The
	// message is valid only during the call.
	Poll(now time.Duration, deliver func(msg []byte)) error
	Close() error
}

// LocalServer runs a room's Server in process for local clients: the
// server emulation of the seed. Its messages go through the same encoders
// and decoders as over a network.
type LocalServer struct {
	srv   *Server
	inbox map[PlayerID][][]byte
}

// NewLocalServer returns a local room running g.
func NewLocalServer(cfg ServerConfig, g Game) *LocalServer {
	return &LocalServer{srv: NewServer(cfg, g), inbox: make(map[PlayerID][][]byte)}
}

// Server is the room's authoritative loop.
func (l *LocalServer) Server() *Server { return l.srv }

// Connect joins player p and returns its loopback connection.
func (l *LocalServer) Connect(now time.Duration, p PlayerID) (*Loopback, error) {
	if err := l.srv.Join(now, p); err != nil {
		return nil, err
	}
	l.pump(now)
	return &Loopback{hub: l, player: p}, nil
}

// pump runs the server to now and files its messages by recipient.
func (l *LocalServer) pump(now time.Duration) {
	l.srv.Tick(now)
	for _, m := range l.srv.Ready().Messages {
		if _, ok := l.inbox[m.To]; ok || l.srv.client(m.To) != nil {
			l.inbox[m.To] = append(l.inbox[m.To], slices.Clone(m.Data))
		}
	}
	l.srv.Advance()
}

// Loopback is one local client's Network.
type Loopback struct {
	hub    *LocalServer
	player PlayerID
}

// Send hands msg to the server at once.
func (lb *Loopback) Send(now time.Duration, _ Lane, msg []byte) error {
	return lb.hub.srv.Receive(now, lb.player, msg)
}

// Poll runs the server to now and delivers the client's messages.
func (lb *Loopback) Poll(now time.Duration, deliver func([]byte)) error {
	lb.hub.pump(now)
	msgs := lb.hub.inbox[lb.player]
	lb.hub.inbox[lb.player] = msgs[:0]
	for _, m := range msgs {
		deliver(m)
	}
	return nil
}

// Close leaves the room.
func (lb *Loopback) Close() error {
	lb.hub.srv.Leave(0, lb.player)
	delete(lb.hub.inbox, lb.player)
	return nil
}

// Session drives a Client over a Network: one code path for a remote
// room and the local server emulation.
type Session struct {
	Client *Client
	Net    Network
	// Errors counts messages the client refused (malformed, stale
	// baselines); they are dropped.
	Errors int
}

// Step delivers what arrived by now, advances the client (predicting with
// intent) and sends what it produced.
func (s *Session) Step(now time.Duration, intent IntentFunc) error {
	if err := s.Net.Poll(now, func(m []byte) {
		if s.Client.Receive(now, m) != nil {
			s.Errors++
		}
	}); err != nil {
		return err
	}
	s.Client.Update(now, intent)
	for _, m := range s.Client.Ready() {
		if err := s.Net.Send(now, m.Lane, m.Data); err != nil {
			return err
		}
	}
	s.Client.Advance()
	return nil
}
