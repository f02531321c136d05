package transportbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tickwire/tickwire/netsim"
)

// SharedResult is the JSON object of a shared-bottleneck run (RunShared).
type SharedResult struct {
	About string   `json:"about"`
	Peers []string `json:"peers"`
	// GoodputBps is each flow's delivered message bytes per second after
	// the warm-up; FairShareBps is the link's capacity over the flows, and
	// ShareOfFair each flow's goodput over it.
	GoodputBps   []float64 `json:"goodput_bytes_per_s"`
	FairShareBps float64   `json:"fair_share_bytes_per_s"`
	ShareOfFair  []float64 `json:"share_of_fair"`
	Seconds      float64   `json:"seconds"`
	WarmSeconds  float64   `json:"warm_s"`
}

// SharedLink is the bottleneck of RunShared: 10 Mbit/s with a 50 ms queue
// and 20 ms of latency, client → server; acknowledgements come back over
// 20 ms without a bandwidth limit.
func SharedLink() netsim.Link {
	return netsim.Link{Latency: 20 * time.Millisecond, BandwidthBps: 10_000_000 / 8, QueueLimit: 10_000_000 / 8 / 20}
}

// SharedConfig sets up a shared-bottleneck run.
type SharedConfig struct {
	// Seed seeds the bottleneck; flow i's return path uses Seed+i.
	Seed uint64
	// Duration is the sending time (0: 30 s); goodput is measured from
	// Warm on (0: a third of Duration).
	Duration, Warm time.Duration
	// Link is the bottleneck, client → server (zero: SharedLink()).
	// Acknowledgements come back over the same latency, unimpaired.
	Link netsim.Link
	// Net, when set, carries the run over an in-memory network (see
	// RunConfig.Net).
	Net *netsim.MemNetwork
}

// RunShared runs one bulk flow per peer (16 KiB reliable messages, as fast
// as each accepts them), all client → server through one shared
// bottleneck, and measures each flow's goodput: how the transports share
// a link (issue 23's (c)).
func RunShared(ctx context.Context, peers []Peer, names []string, sc SharedConfig) (*SharedResult, error) {
	d, warm, link := sc.Duration, sc.Warm, sc.Link
	if d <= 0 {
		d = 30 * time.Second
	}
	if warm <= 0 {
		warm = d / 3
	}
	if link == (netsim.Link{}) {
		link = SharedLink()
	}
	rc := RunConfig{Seed: sc.Seed, Net: sc.Net}
	bn := netsim.NewBottleneck(link, rc.Seed)
	back := netsim.Link{Latency: link.Latency}
	o := Options{Keepalive: time.Second, MTU: 1200}
	var envs []*env
	for i, p := range peers {
		w := Workload{Name: "S", Conns: 1, Link: back, via: bn, net: rc.Net}
		e, cleanup, err := start(ctx, p, w, o, rc.Seed+uint64(i))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", names[i], err)
		}
		defer cleanup()
		envs = append(envs, e)
	}
	s := series{lane: Ordered}
	sendCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, e := range envs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := uint32(0); sendCtx.Err() == nil; seq++ {
				if err := e.send(0, s, seq, 16<<10); err != nil {
					return
				}
			}
		}()
	}
	sleep := func(t time.Duration) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(t):
			return nil
		}
	}
	err := sleep(warm)
	var at []int64
	for _, e := range envs {
		at = append(at, e.rec.snapshot(s).bytes)
	}
	err = errors.Join(err, sleep(d-warm))
	stop()
	if err != nil {
		return nil, err
	}
	r := &SharedResult{About: fmt.Sprintf("one bulk flow per peer through one %g Mbit/s bottleneck with a %v queue, %v each way",
		float64(link.BandwidthBps)*8/1e6, time.Duration(link.QueueLimit)*time.Second/time.Duration(link.BandwidthBps), link.Latency),
		Peers: names, FairShareBps: float64(link.BandwidthBps) / float64(len(peers)), Seconds: d.Seconds(), WarmSeconds: warm.Seconds()}
	for i, e := range envs {
		g := float64(e.rec.snapshot(s).bytes-at[i]) / (d - warm).Seconds()
		r.GoodputBps = append(r.GoodputBps, g)
		r.ShareOfFair = append(r.ShareOfFair, g/r.FairShareBps)
	}
	for _, e := range envs {
		for _, c := range e.clients {
			c.Close() // unblocks a sender waiting on flow control
		}
	}
	wg.Wait()
	return r, nil
}

// WriteSharedText writes r as a few lines of text.
func WriteSharedText(w io.Writer, r *SharedResult) {
	fmt.Fprintf(w, "shared bottleneck, %.0fs (from %.0fs): %s\n", r.Seconds, r.WarmSeconds, r.About)
	for i, p := range r.Peers {
		fmt.Fprintf(w, "  %-10s goodput %10.0f B/s, %.2f of its fair share\n", p, r.GoodputBps[i], r.ShareOfFair[i])
	}
}
