package rendezvous

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"net/netip"
)

// Magic starts every rendezvous datagram, so one socket can carry them
// and the transport's datagrams (whose first byte is never 'T').
const Magic = "TWR1"

// Message kinds, the byte after Magic.
const (
	kindRegister   = 1 // host → rendezvous: register or keep alive a code
	kindRegistered = 2 // rendezvous → host: the code, its secret, the observed endpoint
	kindResolve    = 3 // joiner → rendezvous: what does this code name
	kindPeer       = 4 // rendezvous → host: a joiner is coming
	kindReady      = 5 // host → rendezvous: my NAT is open to it, let it come
	kindAnswer     = 6 // rendezvous → joiner: the host's endpoints, token, relay
	kindReject     = 7 // rendezvous → anyone: no, and why
	kindProbe      = 8 // peer ↔ peer: an authenticated punch probe
	kindBind       = 9 // peer → relay: bind me to this session's relay
)

// Limits of the wire format: every variable part is small and bounded, so
// a decoder never allocates more than a datagram's size.
const (
	MaxRoom       = 64 // bytes of a room name
	MaxCandidates = 4  // local candidates of a host
	maxCode       = 16 // bytes of a code on the wire
	tokenLen      = 16
	macLen        = 16
	candLen       = 18 // 16-byte address (IPv4 mapped), 2-byte port
)

// ErrMalformed is a datagram that is not a well-formed rendezvous message.
var ErrMalformed = errors.New("rendezvous: malformed message")

// Token is the secret a rendezvous gives both ends of one session: it
// keys the MACs of their probes and relay binds.
type Token [tokenLen]byte

// Secret is what proves a host owns its code.
type Secret [tokenLen]byte

// register: a host registers (Code empty) or keeps its code alive (Code
// and Secret set; from a new address this moves the code there).
type register struct {
	Code       string
	Secret     Secret
	Uses       uint8 // joiners the code admits; 0 means 1
	RoomSize   uint8 // players of the host's room, the host included
	Room       string
	ServerKey  []byte // 0 or 32 bytes
	Candidates []netip.AddrPort
}

type registered struct {
	Code     string
	Secret   Secret
	Observed netip.AddrPort
}

type resolve struct{ Code string }

// peer tells the host who is coming.
type peer struct {
	Session uint64
	Token   Token
	Joiner  netip.AddrPort // observed
	Relay   netip.AddrPort // zero: no relay route
}

type ready struct {
	Code    string
	Secret  Secret
	Session uint64
}

// answer tells the joiner where the host is.
type answer struct {
	Session    uint64
	Token      Token
	RoomSize   uint8
	Room       string
	ServerKey  []byte
	Host       netip.AddrPort   // observed public endpoint
	Candidates []netip.AddrPort // the host's local ones
	Relay      netip.AddrPort
	Observed   netip.AddrPort // the joiner's own, as seen
}

// Reject reasons.
const (
	ReasonUnknownCode uint8 = 1 + iota // no such code (or it expired)
	ReasonCodeUsed                     // a single-use code already taken
	ReasonRateLimited                  // too many requests from this address
	ReasonFull                         // the rendezvous holds as many codes as it may
	ReasonBadSecret                    // not the code's host
)

// NumReasons bounds the refusal causes Refusals counts: 0 is a malformed
// datagram (which gets no answer), the others the Reason codes.
const NumReasons = int(ReasonBadSecret) + 1

// ReasonLabel is refusal cause r (0: malformed) as a metric label.
func ReasonLabel(r int) string {
	return [NumReasons]string{"malformed", "unknown_code", "code_used", "rate_limited", "full", "bad_secret"}[r]
}

var reasonText = map[uint8]string{
	ReasonUnknownCode: "unknown or expired code",
	ReasonCodeUsed:    "code already used",
	ReasonRateLimited: "rate limited",
	ReasonFull:        "rendezvous full",
	ReasonBadSecret:   "not the code's host",
}

type reject struct {
	Reason uint8
	Code   string
}

// Roles in a probe or bind.
const (
	roleRelay  uint8 = 0
	roleHost   uint8 = 1
	roleJoiner uint8 = 2
)

// probe is a punch probe (kindProbe) or a relay bind (kindBind): the MAC
// over everything before it, keyed by the session token, is what a third
// party cannot forge.
type probe struct {
	Kind    uint8
	Session uint64
	Role    uint8
	Ack     bool // a reply to a probe, or the relay saying both ends are bound
	Nonce   uint64
	MAC     [macLen]byte
}

// probeLen is a probe's exact size: 4 magic + 1 kind + 8 + 1 + 1 + 8 + 16.
const probeLen = len(Magic) + 1 + 8 + 1 + 1 + 8 + macLen

// --- encoding ---

type enc []byte

func header(kind uint8) enc      { return append(enc(Magic), kind) }
func (e enc) u8(v uint8) enc     { return append(e, v) }
func (e enc) u64(v uint64) enc   { return binary.BigEndian.AppendUint64(e, v) }
func (e enc) raw(b []byte) enc   { return append(e, b...) }
func (e enc) str(s string) enc   { return append(append(e, uint8(len(s))), s...) }
func (e enc) bytes(b []byte) enc { return append(append(e, uint8(len(b))), b...) }
func (e enc) cand(a netip.AddrPort) enc {
	ip := a.Addr().As16()
	if !a.IsValid() {
		ip = [16]byte{}
	}
	return binary.BigEndian.AppendUint16(append(e, ip[:]...), a.Port())
}
func (e enc) cands(as []netip.AddrPort) enc {
	e = e.u8(uint8(len(as)))
	for _, a := range as {
		e = e.cand(a)
	}
	return e
}

// dec reads fields with a sticky error; it never reads past its bytes
// and never allocates more than it holds.
type dec struct {
	b   []byte
	bad bool
}

func (d *dec) take(n int) []byte {
	if d.bad || n > len(d.b) {
		d.bad = true
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}
func (d *dec) arr16() (a [16]byte) {
	copy(a[:], d.take(16))
	return a
}
func (d *dec) u8() uint8 {
	if v := d.take(1); v != nil {
		return v[0]
	}
	return 0
}
func (d *dec) u64() uint64 {
	if v := d.take(8); v != nil {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}
func (d *dec) bytesMax(max int) []byte {
	n := int(d.u8())
	if n > max {
		d.bad = true
		return nil
	}
	return d.take(n)
}
func (d *dec) str(max int) string { return string(d.bytesMax(max)) }
func (d *dec) key() []byte {
	b := d.bytesMax(32)
	if len(b) != 0 && len(b) != 32 {
		d.bad = true
	}
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}
func (d *dec) cand() netip.AddrPort {
	v := d.take(candLen)
	if v == nil {
		return netip.AddrPort{}
	}
	port := binary.BigEndian.Uint16(v[16:])
	if [16]byte(v[:16]) == [16]byte{} && port == 0 {
		return netip.AddrPort{}
	}
	return netip.AddrPortFrom(netip.AddrFrom16([16]byte(v[:16])).Unmap(), port)
}
func (d *dec) cands() []netip.AddrPort {
	n := int(d.u8())
	if n > MaxCandidates || n*candLen > len(d.b) {
		d.bad = true
		return nil
	}
	var out []netip.AddrPort
	for range n {
		out = append(out, d.cand())
	}
	return out
}
func (d *dec) done() error {
	if d.bad || len(d.b) != 0 {
		return ErrMalformed
	}
	return nil
}

// --- one append and one parse per message, side by side ---

func (m *register) append(b []byte) []byte {
	return append(b, header(kindRegister).str(m.Code).raw(m.Secret[:]).u8(m.Uses).u8(m.RoomSize).str(m.Room).bytes(m.ServerKey).cands(m.Candidates)...)
}
func (m *register) parse(d *dec) {
	m.Code, m.Secret = d.str(maxCode), Secret(d.arr16())
	m.Uses, m.RoomSize, m.Room, m.ServerKey, m.Candidates = d.u8(), d.u8(), d.str(MaxRoom), d.key(), d.cands()
}

func (m *registered) append(b []byte) []byte {
	return append(b, header(kindRegistered).str(m.Code).raw(m.Secret[:]).cand(m.Observed)...)
}
func (m *registered) parse(d *dec) {
	m.Code, m.Secret, m.Observed = d.str(maxCode), Secret(d.arr16()), d.cand()
}

func (m *resolve) append(b []byte) []byte { return append(b, header(kindResolve).str(m.Code)...) }
func (m *resolve) parse(d *dec)           { m.Code = d.str(maxCode) }

func (m *peer) append(b []byte) []byte {
	return append(b, header(kindPeer).u64(m.Session).raw(m.Token[:]).cand(m.Joiner).cand(m.Relay)...)
}
func (m *peer) parse(d *dec) {
	m.Session, m.Token, m.Joiner, m.Relay = d.u64(), Token(d.arr16()), d.cand(), d.cand()
}

func (m *ready) append(b []byte) []byte {
	return append(b, header(kindReady).str(m.Code).raw(m.Secret[:]).u64(m.Session)...)
}
func (m *ready) parse(d *dec) {
	m.Code, m.Secret, m.Session = d.str(maxCode), Secret(d.arr16()), d.u64()
}

func (m *answer) append(b []byte) []byte {
	return append(b, header(kindAnswer).u64(m.Session).raw(m.Token[:]).u8(m.RoomSize).str(m.Room).bytes(m.ServerKey).
		cand(m.Host).cands(m.Candidates).cand(m.Relay).cand(m.Observed)...)
}
func (m *answer) parse(d *dec) {
	m.Session, m.Token, m.RoomSize, m.Room, m.ServerKey = d.u64(), Token(d.arr16()), d.u8(), d.str(MaxRoom), d.key()
	m.Host, m.Candidates, m.Relay, m.Observed = d.cand(), d.cands(), d.cand(), d.cand()
}

func (m *reject) append(b []byte) []byte {
	return append(b, header(kindReject).u8(m.Reason).str(m.Code)...)
}
func (m *reject) parse(d *dec) { m.Reason, m.Code = d.u8(), d.str(maxCode) }

func (m *probe) append(b []byte) []byte {
	return append(b, m.body().raw(m.MAC[:])...)
}
func (m *probe) body() enc {
	ack := uint8(0)
	if m.Ack {
		ack = 1
	}
	return header(m.Kind).u64(m.Session).u8(m.Role).u8(ack).u64(m.Nonce)
}
func (m *probe) parse(d *dec) {
	m.Session, m.Role = d.u64(), d.u8()
	switch d.u8() {
	case 0:
	case 1:
		m.Ack = true
	default:
		d.bad = true
	}
	m.Nonce, m.MAC = d.u64(), d.arr16()
}

// sign sets the probe's MAC with token.
func (m *probe) sign(t Token) { copy(m.MAC[:], m.mac(t)) }

// verify reports whether the probe's MAC is token's.
func (m *probe) verify(t Token) bool { return hmac.Equal(m.MAC[:], m.mac(t)) }

func (m *probe) mac(t Token) []byte {
	h := hmac.New(sha256.New, t[:])
	h.Write(m.body())
	return h.Sum(nil)[:macLen]
}

// IsMessage reports whether b is a rendezvous datagram (by its magic).
func IsMessage(b []byte) bool { return len(b) > len(Magic) && string(b[:len(Magic)]) == Magic }

// message is any decoded rendezvous message.
type message interface{ append([]byte) []byte }

// decode parses one datagram. It never panics and allocates at most what
// the datagram holds.
func decode(b []byte) (message, error) {
	if !IsMessage(b) {
		return nil, ErrMalformed
	}
	kind := b[len(Magic)]
	d := &dec{b: b[len(Magic)+1:]}
	var m interface {
		message
		parse(*dec)
	}
	switch kind {
	case kindRegister:
		m = new(register)
	case kindRegistered:
		m = new(registered)
	case kindResolve:
		m = new(resolve)
	case kindPeer:
		m = new(peer)
	case kindReady:
		m = new(ready)
	case kindAnswer:
		m = new(answer)
	case kindReject:
		m = new(reject)
	case kindProbe, kindBind:
		m = &probe{Kind: kind}
	default:
		return nil, ErrMalformed
	}
	m.parse(d)
	if err := d.done(); err != nil {
		return nil, err
	}
	return m, nil
}
