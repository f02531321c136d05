package rendezvous

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/netsim"
)

// expectedPath is the brute-force rule for two NATs: a punch gets through
// unless one end is symmetric (its port toward the peer is not the one
// the rendezvous saw) and the other filters by address and port (so it
// drops the unknown port) — or both are symmetric.
func expectedPath(host, joiner netsim.NATKind) Path {
	sym := func(k netsim.NATKind) bool { return k == netsim.Symmetric }
	full := func(k netsim.NATKind) bool { return k == netsim.FullCone }
	if sym(host) && !full(joiner) || sym(joiner) && !full(host) {
		return PathRelayed
	}
	return PathPunched
}

// TestPunchEveryNATPair sweeps every pair of NAT kinds and delays: the
// path is the one the rule above gives; a punched path is found within 2
// RTT + the probe interval of the code's entry (one RTT of signaling, one
// of probing); a relayed one within the punch timeout + 2 RTT + the
// interval; and the path carries datagrams both ways.
func TestPunchEveryNATPair(t *testing.T) {
	kinds := []netsim.NATKind{netsim.PortRestrictedCone, netsim.FullCone, netsim.Symmetric}
	delays := []time.Duration{0, 7 * time.Millisecond, 40 * time.Millisecond}
	for _, hk := range kinds {
		for _, jk := range kinds {
			for _, d := range delays {
				t.Run(fmt.Sprintf("%v-%v-%v", hk, jk, d), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						testPunch(t, hk, jk, d, 2*d)
					})
				})
			}
		}
	}
}

func testPunch(t *testing.T, hk, jk netsim.NATKind, hd, jd time.Duration) {
	w := newWorld(t, netsim.NATConfig{Kind: hk, Delay: hd}, netsim.NATConfig{Kind: jk, Delay: jd})
	h, hc := w.host(HostConfig{Room: "r"})
	r, took, jc, err := w.join(h.Code())
	if err != nil {
		t.Fatal(err)
	}
	want := expectedPath(hk, jk)
	if r.Path != want {
		t.Fatalf("path %s, want %s", r.Path, want)
	}
	rtt := 2 * (hd + jd)
	bound := 2*rtt + punchCfg.Interval
	if want == PathRelayed {
		bound += punchCfg.Timeout
	}
	if took > bound {
		t.Fatalf("%s after %v, want within %v (RTT %v)", r.Path, took, bound, rtt)
	}
	// The route carries game datagrams both ways, and the host names it.
	from := exchange(t, r, jc, hc)
	synctest.Wait() // the host has handled every probe
	if got := h.PathOf(from); got != want || h.Path() != want {
		t.Fatalf("the host sees path %s, want %s", got, want)
	}
}
