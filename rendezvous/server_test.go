package rendezvous

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/tracker"
)

var (
	t0       = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hostAt   = netip.MustParseAddrPort("203.0.113.1:40000")
	joinerAt = netip.MustParseAddrPort("203.0.113.2:40000")
	otherAt  = netip.MustParseAddrPort("203.0.113.3:40000")
)

// call sends m from from to s and decodes the replies.
func call(t testing.TB, s *Server, now time.Time, from netip.AddrPort, m message) []message {
	t.Helper()
	var got []message
	for _, d := range s.Handle(now, from, m.append(nil), nil) {
		r, err := decode(d.Data)
		if err != nil {
			t.Fatalf("the server sent a malformed %x", d.Data)
		}
		got = append(got, r)
	}
	return got
}

func one[T message](t *testing.T, ms []message) T {
	t.Helper()
	if len(ms) != 1 {
		t.Fatalf("%d replies, want 1: %+v", len(ms), ms)
	}
	m, ok := ms[0].(T)
	if !ok {
		t.Fatalf("reply %T %+v, want %T", ms[0], ms[0], m)
	}
	return m
}

func reasonOf(t *testing.T, ms []message) uint8 { return one[*reject](t, ms).Reason }

// TestCodeLifecycle: a code is single use by default, admits Uses
// joiners when the host asks, answers a joiner only once the host is
// ready, lives as long as keepalives come, moves with its host only for
// the holder of its secret, and expires.
func TestCodeLifecycle(t *testing.T) {
	s := NewServer(ServerConfig{})
	reg := one[*registered](t, call(t, s, t0, hostAt, &register{Room: "r", Uses: 2}))
	if _, err := tracker.ParseCode(reg.Code); err != nil || reg.Observed != hostAt {
		t.Fatalf("registered %+v: %v", reg, err)
	}
	// A joiner: the host hears first, the joiner once the host is ready.
	p := one[*peer](t, call(t, s, t0, joinerAt, &resolve{Code: reg.Code}))
	if p.Joiner != joinerAt {
		t.Fatalf("peer %+v", p)
	}
	again := one[*peer](t, call(t, s, t0, joinerAt, &resolve{Code: reg.Code}))
	if again.Session != p.Session || again.Token != p.Token {
		t.Fatal("a repeated resolve opened another session")
	}
	if r := reasonOf(t, call(t, s, t0, otherAt, &ready{Code: reg.Code, Session: p.Session})); r != ReasonBadSecret {
		t.Fatalf("ready without the secret: reason %d", r)
	}
	a := one[*answer](t, call(t, s, t0, hostAt, &ready{Code: reg.Code, Secret: reg.Secret, Session: p.Session}))
	if a.Host != hostAt || a.Token != p.Token || a.Room != "r" || a.Observed != joinerAt {
		t.Fatalf("answer %+v", a)
	}
	// The second use, then no third.
	one[*peer](t, call(t, s, t0, otherAt, &resolve{Code: reg.Code}))
	if r := reasonOf(t, call(t, s, t0, netip.MustParseAddrPort("192.0.2.9:1"), &resolve{Code: reg.Code})); r != ReasonCodeUsed {
		t.Fatalf("third use: reason %d", r)
	}
	// A keepalive from elsewhere without the secret moves nothing; with
	// it the code follows its host.
	if r := reasonOf(t, call(t, s, t0, otherAt, &register{Code: reg.Code})); r != ReasonBadSecret {
		t.Fatalf("keepalive without the secret: reason %d", r)
	}
	moved := one[*registered](t, call(t, s, t0.Add(50*time.Second), otherAt, &register{Code: reg.Code, Secret: reg.Secret}))
	if moved.Observed != otherAt || s.codes[reg.Code].host != otherAt {
		t.Fatalf("keepalive from a new address: %+v", moved)
	}
	// Expiry: CodeTTL after the last keepalive.
	s.Expire(t0.Add(50*time.Second + DefaultCodeTTL - time.Nanosecond))
	if s.Codes() != 1 {
		t.Fatal("expired early")
	}
	if r := reasonOf(t, call(t, s, t0.Add(50*time.Second+DefaultCodeTTL), joinerAt, &resolve{Code: reg.Code})); r != ReasonUnknownCode || s.Codes() != 0 {
		t.Fatalf("after expiry: reason %d, %d codes", r, s.Codes())
	}
}

// TestSingleUse: without Uses a code admits one joiner.
func TestSingleUse(t *testing.T) {
	s := NewServer(ServerConfig{})
	reg := one[*registered](t, call(t, s, t0, hostAt, &register{}))
	one[*peer](t, call(t, s, t0, joinerAt, &resolve{Code: reg.Code}))
	if r := reasonOf(t, call(t, s, t0, otherAt, &resolve{Code: reg.Code})); r != ReasonCodeUsed {
		t.Fatalf("second use: reason %d", r)
	}
}

// TestResolveFlood: 100,000 resolves of random codes from 5,000 addresses
// (and from one) find no code, are cut to the rate limit per address, and
// leave memory bounded: the limiter remembers at most MaxClients
// addresses, the codes are unchanged, and the heap does not grow with the
// flood.
func TestResolveFlood(t *testing.T) {
	const maxClients = 1000
	s := NewServer(ServerConfig{MaxClients: maxClients, Rate: tracker.Rate{N: 10, Per: time.Minute}, CodeTTL: time.Hour})
	for i := range 50 {
		one[*registered](t, call(t, s, t0, netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 9, 0, byte(i)}), 1), &register{}))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	flood := func(n int, addrs int) (answered, limited int) {
		var out []Datagram
		for i := range n {
			ip := rng.IntN(addrs)
			from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{100, 64, byte(ip >> 8), byte(ip)}), uint16(rng.IntN(65535)+1))
			code := make([]byte, 4)
			for j := range code {
				code[j] = "23456789ABCDEFGHJKMNPQRSTVWXYZ"[rng.IntN(30)]
			}
			now := t0.Add(time.Duration(i) * time.Millisecond)
			out = s.Handle(now, from, (&resolve{Code: "TICK-" + string(code)}).append(nil), out[:0])
			for _, d := range out {
				m, _ := decode(d.Data)
				switch m := m.(type) {
				case *reject:
					if m.Reason == ReasonRateLimited {
						limited++
					} else if m.Reason != ReasonUnknownCode {
						t.Fatalf("reject %d", m.Reason)
					}
				default:
					answered++ // a random code that exists: 50 in 810,000
				}
			}
		}
		return answered, limited
	}
	// One address, 10,000 guesses over 10 s: the burst of 10 and one
	// more token a 6 s get through.
	if _, limited := flood(10000, 1); limited != 10000-11 {
		t.Fatalf("one address: %d of 10,000 limited, want 9,989", limited)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	answered, limited := flood(100000, 5000)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if s.Clients() > maxClients || s.Codes() != 50 {
		t.Fatalf("after the flood: %d clients (max %d), %d codes", s.Clients(), maxClients, s.Codes())
	}
	// About a fifth get past the limit; of those, a random code names one
	// of the 50 in 810,000 about once: 40 would be a broken limit.
	if limited < 75000 || answered > 40 {
		t.Fatalf("%d limited, %d answered of 100,000", limited, answered)
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 1<<20 {
		t.Fatalf("the heap grew by %d bytes during the flood", grew)
	}
}

// TestRegisterFlood: registrations past MaxCodes are refused, and expired
// codes make room.
func TestRegisterFlood(t *testing.T) {
	s := NewServer(ServerConfig{MaxCodes: 100, MaxClients: 1000})
	for i := range 300 {
		from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{100, 64, byte(i >> 8), byte(i)}), 1)
		ms := call(t, s, t0, from, &register{})
		if _, ok := ms[0].(*registered); ok != (i < 100) {
			t.Fatalf("registration %d: %T", i, ms[0])
		}
	}
	one[*registered](t, call(t, s, t0.Add(DefaultCodeTTL), hostAt, &register{}))
	if s.Codes() != 1 {
		t.Fatalf("%d codes after expiry, want 1", s.Codes())
	}
}

// samples is one of each message, for the golden bytes and the fuzzer.
func samples() []message {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i)
	}
	c := []netip.AddrPort{netip.MustParseAddrPort("10.0.0.2:5000"), netip.MustParseAddrPort("[fd00::1]:5001")}
	return []message{
		&register{Code: "TICK-7K3M", Secret: Secret{1}, Uses: 2, RoomSize: 3, Room: "host", ServerKey: key, Candidates: c},
		&register{},
		&registered{Code: "TICK-7K3M", Secret: Secret{1}, Observed: hostAt},
		&resolve{Code: "TICK-7K3M"},
		&peer{Session: 7, Token: Token{2}, Joiner: joinerAt, Relay: rvAddr},
		&ready{Code: "TICK-7K3M", Secret: Secret{1}, Session: 7},
		&answer{Session: 7, Token: Token{2}, RoomSize: 3, Room: "host", ServerKey: key, Host: hostAt, Candidates: c, Relay: rvAddr, Observed: joinerAt},
		&answer{},
		&reject{Reason: ReasonCodeUsed, Code: "TICK-7K3M"},
		&probe{Kind: kindProbe, Session: 7, Role: roleJoiner, Ack: true, Nonce: 3, MAC: [16]byte{9}},
		&probe{Kind: kindBind, Session: 7, Role: roleHost, Nonce: 1},
	}
}

// TestGoldenBytes pins the wire format of a resolve and a probe.
func TestGoldenBytes(t *testing.T) {
	for _, tc := range []struct {
		m    message
		want string
	}{
		{&resolve{Code: "TICK-7K3M"}, "5457523103" + "09" + hex.EncodeToString([]byte("TICK-7K3M"))},
		{&register{Uses: 2, RoomSize: 3, Room: "r"}, "5457523101" + "00" + "00000000000000000000000000000000" + "02" + "03" + "0172" + "00" + "00"},
		{&probe{Kind: kindProbe, Session: 7, Role: roleJoiner, Ack: true, Nonce: 3, MAC: [16]byte{9}},
			"5457523108" + "0000000000000007" + "02" + "01" + "0000000000000003" + "09000000000000000000000000000000"},
	} {
		if got := hex.EncodeToString(tc.m.append(nil)); got != tc.want {
			t.Errorf("%T: %s, want %s", tc.m, got, tc.want)
		}
	}
	if len((&probe{}).append(nil)) != probeLen {
		t.Error("a probe is not probeLen bytes")
	}
}

// TestRoundTrip: every sample decodes to what was encoded.
func TestRoundTrip(t *testing.T) {
	for _, m := range samples() {
		b := m.append(nil)
		got, err := decode(b)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", m) && string(got.append(nil)) != string(b) {
			t.Fatalf("%T: %+v, want %+v", m, got, m)
		}
	}
}

// FuzzDecode: the decoder never panics, and whatever it accepts encodes
// back to the same bytes (one encoding per message).
func FuzzDecode(f *testing.F) {
	for _, m := range samples() {
		f.Add(m.append(nil))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decode(b)
		if err != nil {
			return
		}
		if got := m.append(nil); string(got) != string(b) {
			t.Fatalf("%x decodes to %+v, which encodes as %x", b, m, got)
		}
	})
}

// TestJoinURI: a URI parses back to its parts; anything else is ErrBadURI.
func TestJoinURI(t *testing.T) {
	code, addr, err := ParseJoinURI(JoinURI("TICK-7K3M", "198.51.100.1:3478"))
	if err != nil || code != "TICK-7K3M" || addr != "198.51.100.1:3478" {
		t.Fatalf("%q %q %v", code, addr, err)
	}
	for _, bad := range []string{"", "tickwire://join/TICK-7K3M", "tickwire://join/TICK-0000@h:1", "http://join/TICK-7K3M@h:1"} {
		if _, _, err := ParseJoinURI(bad); !errors.Is(err, ErrBadURI) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestRefusalsCounted: every refusal is counted by its cause, with its
// source, answered or not (a malformed datagram, a rate-limited register).
func TestRefusalsCounted(t *testing.T) {
	s := NewServer(ServerConfig{MaxCodes: 1, MaxClients: 10, Rate: tracker.Rate{N: 4, Per: time.Minute}})
	reg := one[*registered](t, call(t, s, t0, hostAt, &register{Room: "r"}))
	reasonOf(t, call(t, s, t0, otherAt, &register{Room: "x"}))                         // full
	reasonOf(t, call(t, s, t0, otherAt, &register{Code: reg.Code, Secret: Secret{1}})) // bad secret
	reasonOf(t, call(t, s, t0, otherAt, &resolve{Code: "TICK-ZZZZ"}))                  // unknown code
	call(t, s, t0, joinerAt, &resolve{Code: reg.Code})
	reasonOf(t, call(t, s, t0, otherAt, &resolve{Code: reg.Code})) // used: single use
	s.Handle(t0, otherAt, []byte{0xff, 0x00}, nil)                 // malformed
	for range 3 {
		reasonOf(t, call(t, s, t0, otherAt, &resolve{Code: reg.Code})) // past 4 a minute: rate limited
	}
	got, from := s.Refused()
	want := Refusals{0: 1, ReasonUnknownCode: 1, ReasonCodeUsed: 1, ReasonRateLimited: 3, ReasonFull: 1, ReasonBadSecret: 1}
	if got != want {
		for r := range NumReasons {
			t.Errorf("%s: %d, want %d", ReasonLabel(r), got[r], want[r])
		}
	}
	for r := range NumReasons {
		if from[r] != otherAt {
			t.Errorf("%s: last from %v, want %v", ReasonLabel(r), from[r], otherAt)
		}
	}
}

// TestRefusalLogsBounded: 21 refusals of one cause within a second make
// one log line at once, and one more line with the other 20 a second
// later; each cause has its own line.
func TestRefusalLogsBounded(t *testing.T) {
	var buf bytes.Buffer
	svc := NewService(ServerConfig{Rate: tracker.Rate{N: 1000, Per: time.Second}})
	svc.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	now := t0
	for i := range 21 {
		svc.srv.Handle(now, otherAt, (&resolve{Code: "TICK-ZZZZ"}).append(nil), nil)
		if i == 10 {
			svc.srv.Handle(now, otherAt, []byte{0xff}, nil)
		}
		svc.logRefusals(now)
		now = now.Add(10 * time.Millisecond)
	}
	if n := strings.Count(buf.String(), "\n"); n != 2 || !strings.Contains(buf.String(), "reason=unknown_code count=1 ") ||
		!strings.Contains(buf.String(), "reason=malformed count=1 ") {
		t.Fatalf("log within the second:\n%s", buf.String())
	}
	svc.logRefusals(t0.Add(time.Second))
	if n := strings.Count(buf.String(), "\n"); n != 3 || !strings.Contains(buf.String(), "reason=unknown_code count=20 ") {
		t.Fatalf("log a second later:\n%s", buf.String())
	}
	if st := svc.Stats(); st.Refused[ReasonUnknownCode] != 21 || st.Refused[0] != 1 {
		t.Fatalf("Stats: %+v", st)
	}
}
