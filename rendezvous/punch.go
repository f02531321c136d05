package rendezvous

import (
	"net/netip"
	"time"
)

// Defaults of PunchConfig.
const (
	DefaultProbeInterval = 100 * time.Millisecond
	DefaultPunchTimeout  = 3 * time.Second
	DefaultFirstTTL      = 2
)

// PunchConfig tunes hole punching. The zero value is usable.
type PunchConfig struct {
	// Interval is the time between two rounds of probes; 0 means
	// DefaultProbeInterval.
	Interval time.Duration
	// Timeout bounds punching, and then binding the relay: past it a
	// joiner falls back to the relay route; 0 means DefaultPunchTimeout.
	Timeout time.Duration
	// FirstTTL is the IP TTL of the host's first round of probes: enough
	// to open its own NAT's mapping, too little to reach the joiner's
	// router (see ARCHITECTURE.md, "Hole punching"); 0 means
	// DefaultFirstTTL, -1 sends the first round at the full TTL.
	FirstTTL int
}

func (c PunchConfig) withDefaults() PunchConfig {
	if c.Interval <= 0 {
		c.Interval = DefaultProbeInterval
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultPunchTimeout
	}
	if c.FirstTTL == 0 {
		c.FirstTTL = DefaultFirstTTL
	}
	return c
}

// puncher is one side of one session's hole punch: a pure core. It sends
// a round of probes to every target each interval and proves a path when
// a probe carrying the session's MAC comes back; it answers every valid
// probe with an acknowledgement.
//
// The host's first round is TTL-limited (FirstTTL): it opens the host's
// NAT mapping toward the joiner without reaching the joiner's router, so
// the joiner's first probe, sent once the host is ready, finds the
// mapping open and creates no conflicting state at either router.
type puncher struct {
	cfg     PunchConfig
	kind    uint8 // kindProbe, or kindBind to a relay
	role    uint8
	session uint64
	token   Token
	targets []netip.AddrPort
	rounds  int
	next    time.Time
	nonce   uint64
	peer    netip.AddrPort // proven; invalid until then
}

func newPuncher(cfg PunchConfig, kind, role uint8, session uint64, token Token, targets []netip.AddrPort, now time.Time) *puncher {
	return &puncher{cfg: cfg.withDefaults(), kind: kind, role: role, session: session, token: token, targets: targets, next: now}
}

// Next is when tick has something to send.
func (p *puncher) Next() time.Time { return p.next }

// Done reports the proven peer address, if any.
func (p *puncher) Done() (netip.AddrPort, bool) { return p.peer, p.peer.IsValid() }

// tick appends the probes due at now.
func (p *puncher) tick(now time.Time, out []Datagram) []Datagram {
	if now.Before(p.next) || p.peer.IsValid() {
		return out
	}
	ttl := 0
	if p.rounds == 0 && p.role == roleHost && p.kind == kindProbe && p.cfg.FirstTTL > 0 {
		ttl = p.cfg.FirstTTL
	}
	for _, t := range p.targets {
		out = append(out, Datagram{To: t, Data: p.probe(false), TTL: ttl})
	}
	p.rounds++
	p.next = now.Add(p.cfg.Interval)
	return out
}

func (p *puncher) probe(ack bool) []byte {
	p.nonce++
	m := probe{Kind: p.kind, Session: p.session, Role: p.role, Ack: ack, Nonce: p.nonce}
	m.sign(p.token)
	return m.append(nil)
}

// handle takes a probe from from. A probe of this session from the other
// role with a valid MAC proves from; one that is not an acknowledgement
// is answered. Anything else is ignored: a third party without the token
// cannot make the puncher send to it or accept it.
func (p *puncher) handle(from netip.AddrPort, m *probe, out []Datagram) []Datagram {
	want := roleHost + roleJoiner - p.role
	if p.kind == kindBind {
		want = roleRelay
	}
	if m.Kind != p.kind || m.Session != p.session || m.Role != want || !m.verify(p.token) {
		return out
	}
	if p.kind == kindBind { // the relay acknowledges once both ends are bound
		if m.Ack && !p.peer.IsValid() {
			p.peer = from
		}
		return out
	}
	if !p.peer.IsValid() {
		p.peer = from
	}
	if !m.Ack {
		out = append(out, Datagram{To: from, Data: p.probe(true)})
	}
	return out
}
