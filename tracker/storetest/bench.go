package storetest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/tracker"
)

func benchListing(room string) tracker.Listing {
	return tracker.Listing{Host: "127.0.0.1:7777", Room: room, Map: tracker.MapMeta{Name: "Dunes", Seats: 4},
		Rules: tracker.RulesMeta{Mod: "rts", Version: "1.2"}, Players: []tracker.Player{{Name: "ann"}},
		Status: tracker.StatusWaiting, Engine: "tickwire", NetworkModel: "lockstep", Region: "eu-west"}
}

// Fill publishes n listings into d.
func fill(tb testing.TB, d *tracker.Directory, n int) {
	ctx := context.Background()
	for i := range n {
		l := benchListing(fmt.Sprintf("room-%05d", i))
		if i%3 == 0 {
			l.NetworkModel = "fog_authoritative"
		}
		if _, err := d.Publish(ctx, l); err != nil {
			tb.Fatal(err)
		}
	}
}

// BrowseLatency measures browses of a directory of 10,000 listings through
// the HTTP API over loopback, reporting p50 and p99 per browse (all
// listings, about 3 MB of JSON) and p99 of a filtered browse (a third).
func BrowseLatency(b *testing.B, d *tracker.Directory) {
	fill(b, d, 10_000)
	srv := httptest.NewServer(tracker.NewHandler(d, tracker.HandlerConfig{Rate: tracker.Rate{N: 1 << 30, Per: time.Second}}))
	defer srv.Close()
	c, _ := tracker.NewClient(srv.URL)
	c.HTTP = &http.Client{}
	ctx := context.Background()
	var all, filtered []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		f := tracker.Filter{}
		if i%2 == 1 {
			f.NetworkModel = "fog_authoritative"
		}
		start := time.Now()
		ls, err := c.Browse(ctx, f)
		el := time.Since(start)
		if err != nil || len(ls) == 0 {
			b.Fatal(len(ls), err)
		}
		if i%2 == 1 {
			filtered = append(filtered, el)
		} else {
			all = append(all, el)
		}
	}
	q := func(ds []time.Duration, p float64) float64 {
		if len(ds) == 0 {
			return 0
		}
		slices.Sort(ds)
		return float64(ds[min(len(ds)-1, int(p*float64(len(ds))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(all, 0.5), "p50-all-ms")
	b.ReportMetric(q(all, 0.99), "p99-all-ms")
	b.ReportMetric(q(filtered, 0.99), "p99-filtered-ms")
}
