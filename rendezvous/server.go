package rendezvous

import (
	"crypto/rand"
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/tickwire/tickwire/tracker"
)

// Datagram is one datagram to send: a pure core's output.
type Datagram struct {
	To   netip.AddrPort
	Data []byte
	// TTL is the IP time-to-live to send it with; 0 means the socket's
	// default.
	TTL int
}

// RelayAllocator gives a session a relay route: an address both ends
// bind to (with the session's token) and then talk through.
type RelayAllocator interface {
	Allocate(session uint64, token Token) (netip.AddrPort, error)
}

// Defaults of ServerConfig.
const (
	DefaultMaxCodes = 10000
	DefaultCodeTTL  = 60 * time.Second
	MaxUses         = 16
)

// DefaultRate is how many registrations and resolves an address may make:
// 30 a minute. Enumerating the 810,000 codes from one address would take
// 19 days.
var DefaultRate = tracker.Rate{N: 30, Per: time.Minute}

// ServerConfig configures a Server. The zero value is usable.
type ServerConfig struct {
	// MaxCodes bounds the codes held; 0 means DefaultMaxCodes.
	MaxCodes int
	// CodeTTL is how long a code lives after its host's last keepalive; 0
	// means DefaultCodeTTL.
	CodeTTL time.Duration
	// Rate limits registrations, resolves and bad secrets per IP address;
	// the zero Rate means DefaultRate.
	Rate tracker.Rate
	// MaxClients bounds the addresses the rate limiter remembers; 0 means
	// MaxCodes.
	MaxClients int
	// Relays gives each session a relay route; nil means none.
	Relays RelayAllocator
}

// Server is the rendezvous's pure core: a datagram and its source in,
// datagrams out, no socket, no clock, no goroutine. It holds only
// short-lived codes and never sees game data. Not safe for concurrent use.
type Server struct {
	cfg   ServerConfig
	codes map[string]*entry
	limit *tracker.Limiter
	// refused counts the datagrams refused by cause (index: ReasonLabel)
	// and lastRefused is the last source of each.
	refused     Refusals
	lastRefused [NumReasons]netip.AddrPort
}

// Refusals counts refused datagrams by cause: index 0 malformed, the
// others the Reason codes (ReasonLabel names them).
type Refusals [NumReasons]uint64

// Refused is the count of refused datagrams by cause and the source of
// the last of each.
func (s *Server) Refused() (Refusals, [NumReasons]netip.AddrPort) { return s.refused, s.lastRefused }

// refuse counts a refusal of cause r (0: malformed) from from.
func (s *Server) refuse(r uint8, from netip.AddrPort) {
	s.refused[r]++
	s.lastRefused[r] = from
}

// entry is one registered code.
type entry struct {
	code       string
	secret     Secret
	host       netip.AddrPort // observed, updated by keepalives
	room       string
	roomSize   uint8
	key        []byte
	candidates []netip.AddrPort
	uses       int
	seen       time.Time
	sessions   []session // at most uses
}

// session is one joiner's use of a code.
type session struct {
	id     uint64
	token  Token
	joiner netip.AddrPort
	relay  netip.AddrPort
	ready  bool
}

// NewServer returns a Server.
func NewServer(cfg ServerConfig) *Server {
	if cfg.MaxCodes <= 0 {
		cfg.MaxCodes = DefaultMaxCodes
	}
	if cfg.CodeTTL <= 0 {
		cfg.CodeTTL = DefaultCodeTTL
	}
	if cfg.Rate.N == 0 {
		cfg.Rate = DefaultRate
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = cfg.MaxCodes
	}
	return &Server{cfg: cfg, codes: make(map[string]*entry), limit: tracker.NewLimiter(cfg.Rate, cfg.MaxClients)}
}

// Codes is the number of codes held.
func (s *Server) Codes() int { return len(s.codes) }

// Clients is the number of addresses the rate limiter remembers.
func (s *Server) Clients() int { return s.limit.Len() }

// Expire forgets the codes whose host stopped keeping them alive.
func (s *Server) Expire(now time.Time) {
	for c, e := range s.codes {
		if now.Sub(e.seen) >= s.cfg.CodeTTL {
			delete(s.codes, c)
		}
	}
}

// Handle processes one datagram from from at now and appends what to send
// to out. A malformed datagram gets no answer (nothing to amplify).
func (s *Server) Handle(now time.Time, from netip.AddrPort, b []byte, out []Datagram) []Datagram {
	m, err := decode(b)
	if err != nil {
		s.refuse(0, from)
		return out
	}
	switch m := m.(type) {
	case *register:
		return s.register(now, from, m, out)
	case *resolve:
		return s.resolve(now, from, m, out)
	case *ready:
		return s.ready(now, from, m, out)
	}
	return out
}

// allowed takes a token of from's rate limit; a refusal is counted
// (rate_limited) whether or not it is answered.
func (s *Server) allowed(now time.Time, from netip.AddrPort) bool {
	ok, _ := s.limit.Allow(from.Addr().String(), now)
	if !ok {
		s.refuse(ReasonRateLimited, from)
	}
	return ok
}

// rejectTo counts and answers a refusal (a rate limit, counted by
// allowed, is only answered).
func (s *Server) rejectTo(to netip.AddrPort, reason uint8, code string, out []Datagram) []Datagram {
	if reason != ReasonRateLimited {
		s.refuse(reason, to)
	}
	return append(out, Datagram{To: to, Data: (&reject{Reason: reason, Code: code}).append(nil)})
}

// lookup is the live entry of code, or nil.
func (s *Server) lookup(now time.Time, code string) *entry {
	e := s.codes[code]
	if e != nil && now.Sub(e.seen) >= s.cfg.CodeTTL {
		delete(s.codes, code)
		return nil
	}
	return e
}

// owner is the entry of code if secret is its host's; else it appends
// the reject.
func (s *Server) owner(now time.Time, from netip.AddrPort, code string, secret Secret, out []Datagram) (*entry, []Datagram) {
	e := s.lookup(now, code)
	switch {
	case e == nil:
		if !s.allowed(now, from) {
			return nil, out
		}
		return nil, s.rejectTo(from, ReasonUnknownCode, code, out)
	case e.secret != secret:
		if !s.allowed(now, from) {
			return nil, out
		}
		return nil, s.rejectTo(from, ReasonBadSecret, code, out)
	}
	return e, out
}

func (s *Server) register(now time.Time, from netip.AddrPort, m *register, out []Datagram) []Datagram {
	if m.Code != "" { // a keepalive: moves the code to where it came from
		e, out := s.owner(now, from, m.Code, m.Secret, out)
		if e == nil {
			return out
		}
		e.host, e.seen = from, now
		return append(out, Datagram{To: from, Data: (&registered{Code: e.code, Secret: e.secret, Observed: from}).append(nil)})
	}
	if !s.allowed(now, from) {
		return out
	}
	if len(s.codes) >= s.cfg.MaxCodes {
		s.Expire(now)
		if len(s.codes) >= s.cfg.MaxCodes {
			return s.rejectTo(from, ReasonFull, "", out)
		}
	}
	code := tracker.NewCode()
	for s.codes[code] != nil {
		code = tracker.NewCode()
	}
	e := &entry{code: code, host: from, room: m.Room, roomSize: m.RoomSize, key: m.ServerKey, candidates: m.Candidates,
		uses: min(max(int(m.Uses), 1), MaxUses), seen: now}
	rand.Read(e.secret[:])
	s.codes[code] = e
	return append(out, Datagram{To: from, Data: (&registered{Code: code, Secret: e.secret, Observed: from}).append(nil)})
}

func (s *Server) resolve(now time.Time, from netip.AddrPort, m *resolve, out []Datagram) []Datagram {
	if !s.allowed(now, from) {
		return s.rejectTo(from, ReasonRateLimited, m.Code, out)
	}
	code, err := tracker.ParseCode(m.Code)
	e := s.lookup(now, code)
	if err != nil || e == nil {
		return s.rejectTo(from, ReasonUnknownCode, m.Code, out)
	}
	for i := range e.sessions { // a joiner asking again: the same session
		if e.sessions[i].joiner == from {
			return s.forward(e, &e.sessions[i], out)
		}
	}
	if len(e.sessions) >= e.uses {
		return s.rejectTo(from, ReasonCodeUsed, m.Code, out)
	}
	ss := session{id: random64(), joiner: from}
	rand.Read(ss.token[:])
	if s.cfg.Relays != nil {
		ss.relay, _ = s.cfg.Relays.Allocate(ss.id, ss.token) // no relay route: punching only
	}
	e.sessions = append(e.sessions, ss)
	return s.forward(e, &e.sessions[len(e.sessions)-1], out)
}

// forward moves a session on: before the host is ready, tell the host;
// after, answer the joiner.
func (s *Server) forward(e *entry, ss *session, out []Datagram) []Datagram {
	if !ss.ready {
		return append(out, Datagram{To: e.host, Data: (&peer{Session: ss.id, Token: ss.token, Joiner: ss.joiner, Relay: ss.relay}).append(nil)})
	}
	a := answer{Session: ss.id, Token: ss.token, RoomSize: e.roomSize, Room: e.room, ServerKey: e.key, Host: e.host,
		Candidates: e.candidates, Relay: ss.relay, Observed: ss.joiner}
	return append(out, Datagram{To: ss.joiner, Data: a.append(nil)})
}

func (s *Server) ready(now time.Time, from netip.AddrPort, m *ready, out []Datagram) []Datagram {
	e, out := s.owner(now, from, m.Code, m.Secret, out)
	if e == nil {
		return out
	}
	for i := range e.sessions {
		if ss := &e.sessions[i]; ss.id == m.Session {
			ss.ready = true
			return s.forward(e, ss, out)
		}
	}
	return out
}

func random64() uint64 {
	var b [8]byte
	rand.Read(b[:])
	return binary.BigEndian.Uint64(b[:])
}
