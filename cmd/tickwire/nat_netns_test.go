package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// asBinaryEnv makes this test binary act as the tickwire binary, so the
// namespace test runs real processes without building one.
const asBinaryEnv = "TICKWIRE_TEST_AS_BINARY"

func TestMain(m *testing.M) {
	if os.Getenv(asBinaryEnv) == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// natLab is a set of network namespaces: a public router "pub" running
// the rendezvous (with its relay routes), two home routers "rh" and "rj"
// one hop from it, each doing nftables masquerade and dropping
// unsolicited inbound traffic to the network behind it, a host "h"
// behind rh and a joiner "j" behind rj. The routers' own input is open
// (a closed port answers with ICMP), so an unsolicited packet to a
// router's public port leaves a confirmed conntrack entry there: the
// case where naive simultaneous punching fails (TestNATNamespacesNaiveProbeClashes).
//
//	h 10.1.0.2 ── 10.1.0.1 rh 100.64.1.2 ── 100.64.1.1 pub 100.64.2.1 ── 100.64.2.2 rj 10.2.0.1 ── 10.2.0.2 j
type natLab struct {
	t      *testing.T
	prefix string
}

// newNATLab builds the lab, or skips the test when this machine cannot.
func newNATLab(t *testing.T, random bool) *natLab {
	t.Helper()
	if testing.Short() {
		t.Skip("the NAT namespace test builds network namespaces: not in -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("the NAT namespace test needs root (network namespaces, nftables)")
	}
	for _, tool := range []string{"ip", "nft"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the NAT namespace test needs %s (iproute2, nftables): %v", tool, err)
		}
	}
	lab := &natLab{t: t, prefix: fmt.Sprintf("tw%d", os.Getpid()%100000)}
	if out, err := exec.Command("ip", "netns", "add", lab.ns("probe")).CombinedOutput(); err != nil {
		t.Skipf("network namespaces are unavailable here: %v: %s", err, out)
	}
	exec.Command("ip", "netns", "del", lab.ns("probe")).Run()
	t.Cleanup(lab.teardown)
	for _, n := range []string{"pub", "rh", "rj", "h", "j"} {
		lab.sh("ip netns add " + lab.ns(n))
		lab.in(n, "ip link set lo up")
	}
	lab.link("h", "eth0", "10.1.0.2/24", "rh", "lan", "10.1.0.1/24")
	lab.link("j", "eth0", "10.2.0.2/24", "rj", "lan", "10.2.0.1/24")
	lab.link("rh", "wan", "100.64.1.2/24", "pub", "toh", "100.64.1.1/24")
	lab.link("rj", "wan", "100.64.2.2/24", "pub", "toj", "100.64.2.1/24")
	lab.in("h", "ip route add default via 10.1.0.1")
	lab.in("j", "ip route add default via 10.2.0.1")
	lab.in("rh", "ip route add default via 100.64.1.1")
	lab.in("rj", "ip route add default via 100.64.2.1")
	masq := "masquerade"
	if random {
		masq = "masquerade random"
	}
	for _, r := range []string{"pub", "rh", "rj"} {
		lab.in(r, "sysctl -qw net.ipv4.ip_forward=1")
	}
	for _, r := range []string{"rh", "rj"} {
		if out, err := exec.Command("ip", "netns", "exec", lab.ns(r), "nft", "list", "tables").CombinedOutput(); err != nil {
			t.Skipf("nftables is unavailable here: %v: %s", err, out)
		}
		rules := `table ip nat {
	chain post {
		type nat hook postrouting priority 100; policy accept;
		oifname "wan" ` + masq + `
	}
}
table inet filter {
	chain forward {
		type filter hook forward priority 0; policy drop;
		iifname "lan" accept
		ct state established,related accept
	}
}
`
		cmd := exec.Command("ip", "netns", "exec", lab.ns(r), "nft", "-f", "-")
		cmd.Stdin = strings.NewReader(rules)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("nft: %v: %s", err, out)
		}
	}
	return lab
}

func (l *natLab) ns(n string) string { return l.prefix + "-" + n }

func (l *natLab) sh(cmd string) {
	l.t.Helper()
	f := strings.Fields(cmd)
	if out, err := exec.Command(f[0], f[1:]...).CombinedOutput(); err != nil {
		l.t.Fatalf("%s: %v: %s", cmd, err, out)
	}
}

func (l *natLab) in(n, cmd string) { l.t.Helper(); l.sh("ip netns exec " + l.ns(n) + " " + cmd) }

// link joins namespace a's interface an to b's bn with addresses.
func (l *natLab) link(a, an, aaddr, b, bn, baddr string) {
	l.t.Helper()
	ta, tb := l.prefix+a+an, l.prefix+b+bn
	ta, tb = ta[:min(len(ta), 15)], tb[:min(len(tb), 15)]
	l.sh(fmt.Sprintf("ip link add %s type veth peer name %s", ta, tb))
	l.sh(fmt.Sprintf("ip link set %s netns %s", ta, l.ns(a)))
	l.sh(fmt.Sprintf("ip link set %s netns %s", tb, l.ns(b)))
	l.in(a, fmt.Sprintf("ip link set %s name %s", ta, an))
	l.in(b, fmt.Sprintf("ip link set %s name %s", tb, bn))
	l.in(a, fmt.Sprintf("ip addr add %s dev %s", aaddr, an))
	l.in(b, fmt.Sprintf("ip addr add %s dev %s", baddr, bn))
	l.in(a, fmt.Sprintf("ip link set %s up", an))
	l.in(b, fmt.Sprintf("ip link set %s up", bn))
}

func (l *natLab) teardown() {
	for _, n := range []string{"pub", "rh", "rj", "h", "j"} {
		exec.Command("ip", "netns", "del", l.ns(n)).Run()
	}
}

// start runs this binary as tickwire in namespace n until the test ends.
func (l *natLab) start(ctx context.Context, n string, args ...string) *exec.Cmd {
	l.t.Helper()
	self, err := os.Executable()
	if err != nil {
		l.t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", l.ns(n), "env", asBinaryEnv + "=1", self}, args...)...)
	return cmd
}

// natMatch plays a match through the lab: the rendezvous in pub, the host
// in h, the joiner in j, and returns both summaries.
func natMatch(t *testing.T, random bool, hostArgs ...string) (host, joiner joinedSummary, firstTickMS float64) {
	lab := newNATLab(t, random)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rv := lab.start(ctx, "pub", "rendezvous", "--listen", "100.64.1.1:3478")
	if err := rv.Start(); err != nil {
		t.Fatal(err)
	}
	defer rv.Wait()
	defer rv.Process.Kill()
	h := lab.start(ctx, "h", append([]string{"host", "--rendezvous", "100.64.1.1:3478", "--ticks", "60", "--json"}, hostArgs...)...)
	hostOut, err := h.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var hostErr strings.Builder
	h.Stderr = &hostErr
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	defer h.Wait()
	lines := bufio.NewScanner(hostOut)
	if !lines.Scan() {
		h.Wait()
		t.Fatalf("the host printed no join line: %s", hostErr.String())
	}
	var first map[string]string
	if err := json.Unmarshal(lines.Bytes(), &first); err != nil {
		t.Fatalf("first line %q: %v", lines.Text(), err)
	}
	out, err := lab.start(ctx, "j", "bot", "--join", first["join"], "--players", "1", "--ticks", "60", "--json").Output()
	var j struct {
		joinedSummary
		RouteMS     float64 `json:"route_ms"`
		FirstTickMS float64 `json:"first_tick_ms"`
	}
	if jerr := json.Unmarshal(out, &j); jerr != nil {
		t.Fatalf("joiner: %v, %v: %s", err, jerr, out)
	}
	if !lines.Scan() {
		t.Fatalf("no host summary: %s", hostErr.String())
	}
	if err := json.Unmarshal(lines.Bytes(), &host); err != nil {
		t.Fatal(err)
	}
	t.Logf("host %+v\njoiner %+v, code entry to route %.0f ms, to first tick %.0f ms", host, j.joinedSummary, j.RouteMS, j.FirstTickMS)
	return host, j.joinedSummary, j.FirstTickMS
}

// TestNATNamespacesPunched: behind two nftables masquerades that drop
// unsolicited traffic, with no port forwarded, a host and a joiner play a
// match through a join code in sync, over a punched path.
func TestNATNamespacesPunched(t *testing.T) {
	checkNATMatch(t, false, "punched")
}

// TestNATNamespacesRelayed: with "masquerade random" on both routers
// (symmetric NATs) punching fails and the match goes through the relay
// route, in sync.
func TestNATNamespacesRelayed(t *testing.T) {
	checkNATMatch(t, true, "relayed")
}

// TestNATNamespacesNaiveProbeClashes proves the TTL-limited first probe
// is needed: with the host's first probe at the full TTL, it reaches the
// joiner's router and leaves a conntrack entry there whose reply tuple is
// the joiner's own outgoing mapping; the joiner's NAT then remaps its
// port, the punch misses, and only the relay route is left.
func TestNATNamespacesNaiveProbeClashes(t *testing.T) {
	checkNATMatch(t, false, "relayed", "--first-ttl", "-1")
}

func checkNATMatch(t *testing.T, random bool, path string, hostArgs ...string) {
	host, joiner, _ := natMatch(t, random, hostArgs...)
	if !host.AllInSync || !joiner.AllInSync || host.Players[0].FinalHash != joiner.Players[0].FinalHash {
		t.Fatalf("not in sync: host %+v, joiner %+v", host, joiner)
	}
	if host.Path != path || joiner.Path != path {
		t.Fatalf("paths: host %s, joiner %s; want %s", host.Path, joiner.Path, path)
	}
}
