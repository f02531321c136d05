package main

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/transport/transportbench"
)

// TestShareBesideQUIC is (c) of the congestion issue: a tickwire bulk
// flow beside a quic-go one (Cubic) through one 10 Mbit/s bottleneck with
// 20 ms each way takes at least half its fair share and at most twice
// it, measured from 10 s to 30 s in virtual time, over the 50 ms
// queue and half and twice that. Both are the real transports, over an
// in-memory network in a synctest bubble; goroutine scheduling makes the
// figures vary a little between runs, the seeds vary the bottleneck.
func TestShareBesideQUIC(t *testing.T) {
	for _, queue := range []time.Duration{25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond} {
		for seed := uint64(1); seed <= 2; seed++ {
			t.Run(fmt.Sprintf("queue%v/seed%d", queue, seed), func(t *testing.T) {
				link := transportbench.SharedLink()
				link.QueueLimit = int(link.BandwidthBps * int64(queue) / int64(time.Second))
				share := sharedRun(t, link, seed)
				if share[0] < 0.5 || share[0] > 2 {
					t.Errorf("tickwire has %.2f of its fair share beside quic-go's %.2f", share[0], share[1])
				}
			})
		}
	}
}

// sharedRun runs a tickwire flow beside a quic-go flow through link for
// 30 s of virtual time and returns their shares of fair.
func sharedRun(t *testing.T, link netsim.Link, seed uint64) []float64 {
	var share []float64
	synctest.Test(t, func(t *testing.T) {
		ps := peers()
		r, err := transportbench.RunShared(context.Background(), []Peer{ps["tickwire"], ps["quic"]}, []string{"tickwire", "quic"},
			transportbench.SharedConfig{Seed: seed, Duration: 30 * time.Second, Link: link, Net: netsim.NewMemNetwork()})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: tickwire %.2f, quic %.2f of the fair share", r.About, r.ShareOfFair[0], r.ShareOfFair[1])
		share = r.ShareOfFair
	})
	return share
}
