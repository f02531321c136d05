package rendezvous

import (
	"net/netip"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/tracker"
)

// BenchmarkResolve is the rendezvous core answering resolves of random
// codes from 1,000 addresses under a rate that admits them all: the
// resolves per second one core serves.
func BenchmarkResolve(b *testing.B) {
	s := NewServer(ServerConfig{Rate: tracker.Rate{N: 1 << 30, Per: time.Second}})
	for i := range 1000 {
		call(b, s, t0, netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 9, byte(i >> 8), byte(i)}), 1), &register{})
	}
	reqs := make([][]byte, 1024)
	for i := range reqs {
		reqs[i] = (&resolve{Code: tracker.NewCode()}).append(nil)
	}
	var out []Datagram
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{100, 64, byte(i >> 8 & 3), byte(i)}), 1)
		out = s.Handle(t0, from, reqs[i%len(reqs)], out[:0])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "resolves/s")
}

// BenchmarkCodeMemory is the heap one registered code holds (a room name
// of 4 bytes, a server key, one local candidate).
func BenchmarkCodeMemory(b *testing.B) {
	const codes = 10000
	key := make([]byte, 32)
	var before, after runtime.MemStats
	for range b.N {
		s := NewServer(ServerConfig{MaxCodes: codes, MaxClients: codes, Rate: tracker.Rate{N: 1 << 30, Per: time.Second}})
		runtime.GC()
		runtime.ReadMemStats(&before)
		var out []Datagram
		for i := range codes {
			from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 9, byte(i >> 8), byte(i)}), 1)
			m := &register{Room: "host", ServerKey: key, Candidates: []netip.AddrPort{from}}
			out = s.Handle(t0, from, m.append(nil), out[:0])
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if s.Codes() != codes {
			b.Fatalf("%d codes", s.Codes())
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/codes, "B/code")
	}
}

// TestPunchFigures logs the time from a code's entry to the route, in
// virtual time, with 20 ms between each NAT and the rest of the network
// (an RTT of 80 ms between host and joiner): cone ↔ cone punched,
// symmetric ↔ symmetric relayed after the punch timeout (1 s here). The
// figures of BENCHMARKS.md: go test -run TestPunchFigures -v ./rendezvous
func TestPunchFigures(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind netsim.NATKind
		want Path
	}{{"cone-punched", netsim.PortRestrictedCone, PathPunched}, {"symmetric-relayed", netsim.Symmetric, PathRelayed}} {
		synctest.Test(t, func(t *testing.T) {
			cfg := netsim.NATConfig{Kind: tc.kind, Delay: 20 * time.Millisecond}
			w := newWorld(t, cfg, cfg)
			h, _ := w.host(HostConfig{})
			r, took, _, err := w.join(h.Code())
			if err != nil || r.Path != tc.want {
				t.Fatalf("%s: %+v, %v", tc.name, r, err)
			}
			t.Logf("%s: code entry to route %v (virtual time, RTT 80 ms, probe interval %v, punch timeout %v)",
				tc.name, took, punchCfg.Interval, punchCfg.Timeout)
		})
	}
}
