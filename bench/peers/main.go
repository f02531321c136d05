package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/tickwire/tickwire/transport"
	"github.com/tickwire/tickwire/transport/transportbench"
)

// peers lists the transports that can be measured.
func peers() map[string]Peer {
	return map[string]Peer{"kcp": kcpPeer{}, "quic": quicPeer{}, "tickwire": transportbench.Tickwire{},
		"tickwire-fixed": transportbench.Tickwire{Congestion: transport.CongestionFixedWindow}}
}

func main() {
	// The wrapped sockets are not *net.UDPConn, so quic-go cannot size
	// their kernel buffers; its warning about that is noise here.
	os.Setenv("QUIC_GO_DISABLE_RECEIVE_BUFFER_WARNING", "true")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	ps := peers()
	var names []string
	for _, w := range append(transportbench.Workloads(), transportbench.CongestionWorkloads()...) {
		names = append(names, w.Name)
	}
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	wname := fs.String("workload", "W1", "workload: "+strings.Join(names, ", "))
	pname := fs.String("peer", "kcp", "transport: "+strings.Join(sortedKeys(ps), ", "))
	dur := fs.Duration("duration", 0, "sending time (0: the workload's full length, 30s for W1, W2, W4, W5, C2)")
	conns := fs.Int("conns", 0, "connections (0: the workload's count)")
	seed := fs.Uint64("seed", 1, "netsim seed; client i uses seed+i")
	keepalive := fs.Duration("keepalive", time.Second, "keepalive interval")
	mtu := fs.Int("mtu", 1200, "largest datagram")
	asJSON := fs.Bool("json", false, "print one JSON object")
	beside := fs.String("beside", "", "run one bulk flow of -peer beside one of this peer through a shared bottleneck (for -duration, 30s if 0), instead of a workload")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *beside != "" {
		return runShared(ctx, ps, *pname, *beside, *seed, *dur, *asJSON, stdout)
	}
	w, ok := transportbench.WorkloadByName(*wname)
	if !ok {
		return fmt.Errorf("unknown workload %q", *wname)
	}
	p, ok := ps[*pname]
	if !ok {
		return fmt.Errorf("unknown peer %q (have %s)", *pname, strings.Join(sortedKeys(ps), ", "))
	}
	if *conns > 0 {
		w.Conns = *conns
	}
	res, err := transportbench.Run(ctx, p, w, transportbench.RunConfig{Seed: *seed, Duration: *dur, Keepalive: *keepalive, MTU: *mtu})
	if err != nil {
		return err
	}
	res.Peer = *pname
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	transportbench.WriteText(stdout, res)
	return nil
}

// runShared measures how two peers' bulk flows share one bottleneck.
func runShared(ctx context.Context, ps map[string]Peer, a, b string, seed uint64, d time.Duration, asJSON bool, stdout io.Writer) error {
	var peers []Peer
	for _, n := range []string{a, b} {
		p, ok := ps[n]
		if !ok {
			return fmt.Errorf("unknown peer %q (have %s)", n, strings.Join(sortedKeys(ps), ", "))
		}
		peers = append(peers, p)
	}
	r, err := transportbench.RunShared(ctx, peers, []string{a, b}, transportbench.SharedConfig{Seed: seed, Duration: d})
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	transportbench.WriteSharedText(stdout, r)
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
