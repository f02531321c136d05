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

	"github.com/tickwire/tickwire/transport/transportbench"
)

// peers lists the transports that can be measured.
func peers() map[string]Peer {
	return map[string]Peer{"kcp": kcpPeer{}, "quic": quicPeer{}, "tickwire": transportbench.Tickwire{}}
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
	if err := fs.Parse(args); err != nil {
		return err
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
