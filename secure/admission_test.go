package secure

import (
	"errors"
	"net/netip"
	"testing"
	"time"
)

func TestAdmissionDefaults(t *testing.T) {
	var a Admission
	ip := netip.MustParseAddr("198.51.100.1")
	// 5 per IP.
	for i := range 5 {
		if err := a.Admit(ip, t0); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
	}
	if err := a.Admit(ip, t0); !errors.Is(err, ErrTooManyFromIP) {
		t.Fatalf("sixth: %v", err)
	}
	// 10 new per second: release all, then open and close quickly.
	for range 5 {
		a.Release(ip)
	}
	admitted := 0
	for range 20 {
		if a.Admit(ip, t0) == nil {
			admitted++
			a.Release(ip)
		}
	}
	if admitted != 5 { // 10-token burst, 5 already spent
		t.Fatalf("admitted %d within the same instant", admitted)
	}
	if err := a.Admit(ip, t0.Add(99*time.Millisecond)); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("before refill: %v", err)
	}
	if err := a.Admit(ip, t0.Add(100*time.Millisecond)); err != nil {
		t.Fatalf("after one interval: %v", err)
	}
	st := a.Stats()
	if st.RefusedPerIP != 1 || st.RefusedRate != 16 || st.Admitted != 11 || st.Open != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestAdmissionMaxConnections(t *testing.T) {
	var a Admission
	for i := range 1000 {
		if err := a.Admit(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), t0); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
	}
	if err := a.Admit(netip.MustParseAddr("10.9.9.9"), t0); !errors.Is(err, ErrServerFull) || !a.Full() {
		t.Fatalf("1001st: %v", err)
	}
	if st := a.Stats(); st.RefusedFull != 1 || st.Open != 1000 {
		t.Fatalf("stats %+v", st)
	}
}

// Addresses that hit the rate limit and left stay tracked only while the
// table has room; the table never grows past MaxTrackedIPs.
func TestAdmissionTableIsBounded(t *testing.T) {
	a := Admission{Limits: Limits{MaxConnections: 10, MaxTrackedIPs: 50}}
	now := t0
	for i := range 10_000 {
		ip := netip.AddrFrom4([4]byte{172, 16, byte(i >> 8), byte(i)})
		if err := a.Admit(ip, now); err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		a.Release(ip)
		if n := a.Stats().TrackedIPs; n > 50 {
			t.Fatalf("table grew to %d", n)
		}
		now = now.Add(time.Millisecond)
	}
	if st := a.Stats(); st.Open != 0 || st.Evicted == 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestAdmissionGroupsIPv6By64(t *testing.T) {
	var a Admission
	for i := range 5 {
		ip := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 15: byte(i + 1)})
		if err := a.Admit(ip, t0); err != nil {
			t.Fatal(err)
		}
	}
	sameNet := netip.MustParseAddr("2001:db8::ffff:1")
	if err := a.Admit(sameNet, t0); !errors.Is(err, ErrTooManyFromIP) {
		t.Fatalf("same /64: %v", err)
	}
	if err := a.Admit(netip.MustParseAddr("2001:db8:0:1::1"), t0); err != nil {
		t.Fatalf("other /64: %v", err)
	}
	// An IPv4-mapped address counts as the IPv4 address.
	v4 := netip.MustParseAddr("192.0.2.1")
	mapped := netip.AddrFrom16(v4.As16())
	for range 5 {
		a.Admit(v4, t0)
	}
	if err := a.Admit(mapped, t0); !errors.Is(err, ErrTooManyFromIP) {
		t.Fatalf("mapped: %v", err)
	}
}

// Through the server: limits are checked after the cookie, refusals are
// smaller than the Initiate and carry the reason to the client.
func TestServerRefusesOverLimits(t *testing.T) {
	t.Run("per IP", func(t *testing.T) {
		s := newServer(t, ServerConfig{Limits: Limits{MaxPerIP: 2}})
		for i := range 2 {
			handshake(t, newClient(t, ClientConfig{}, uint64(i)), s, netipWithPort(clientAddr, uint16(i+1)), t0)
		}
		refusedWith(t, s, newClient(t, ClientConfig{}, 9), t0, ErrTooManyFromIP)
	})
	t.Run("rate", func(t *testing.T) {
		s := newServer(t, ServerConfig{Limits: Limits{NewPerSecond: 1}})
		handshake(t, newClient(t, ClientConfig{}, 1), s, netipWithPort(clientAddr, 1), t0)
		refusedWith(t, s, newClient(t, ClientConfig{}, 9), t0, ErrRateLimited)
	})
	t.Run("full", func(t *testing.T) {
		s := newServer(t, ServerConfig{Limits: Limits{MaxConnections: 1}})
		c := newClient(t, ClientConfig{}, 9)
		ch, _ := s.HandleUnvalidated(c.Packet(), clientAddr, t0) // challenge issued while there was room
		in, _ := c.Handle(ch)
		handshake(t, newClient(t, ClientConfig{}, 1), s, netip.MustParseAddrPort("203.0.113.5:1"), t0)
		_, reply, err := s.Accept(in, clientAddr, t0)
		if !errors.Is(err, ErrServerFull) || len(reply) != RefuseSize {
			t.Fatalf("%v, %d bytes", err, len(reply))
		}
		if _, err := c.Handle(reply); !errorsIs(err, ErrRefused, ErrServerFull) {
			t.Fatalf("client: %v", err)
		}
	})
}

func TestAdmissionExemptLoopback(t *testing.T) {
	a := Admission{Limits: Limits{MaxConnections: 50, ExemptLoopback: true}}
	for _, s := range []string{"127.0.0.1", "::1"} {
		ip := netip.MustParseAddr(s)
		for i := range 20 { // beyond 5 per IP and the 10-token burst
			if err := a.Admit(ip, t0); err != nil {
				t.Fatalf("%s connection %d: %v", s, i, err)
			}
		}
	}
	other := netip.MustParseAddr("198.51.100.7")
	for range 5 {
		if err := a.Admit(other, t0); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Admit(other, t0); !errors.Is(err, ErrTooManyFromIP) {
		t.Fatalf("a non-loopback address is still limited: %v", err)
	}
	for range 5 {
		if err := a.Admit(netip.MustParseAddr("127.0.0.2"), t0); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Admit(netip.MustParseAddr("127.0.0.3"), t0); !errors.Is(err, ErrServerFull) {
		t.Fatalf("MaxConnections still applies to loopback: %v", err)
	}
	a.Release(netip.MustParseAddr("127.0.0.1"))
	if st := a.Stats(); st.Open != 49 {
		t.Fatalf("stats %+v", st)
	}
}
