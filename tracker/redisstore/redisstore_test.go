package redisstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tickwire/tickwire/internal/redistest"
	"github.com/tickwire/tickwire/tracker"
	"github.com/tickwire/tickwire/tracker/storetest"
)

func TestConformance(t *testing.T) {
	url := redistest.Start(t)
	n := 0
	storetest.Run(t, func(t *testing.T) tracker.Store {
		opt, _ := redis.ParseURL(url)
		rdb := redis.NewClient(opt)
		t.Cleanup(func() { rdb.Close() })
		n++
		return New(rdb, fmt.Sprintf("test%d:", n))
	}, time.Now())
}

// TestTwoTrackersOneDirectory: two directories (two tracker instances) on
// one Redis see each other's listings, heartbeats and codes.
func TestTwoTrackersOneDirectory(t *testing.T) {
	url := redistest.Start(t)
	ctx := context.Background()
	var dirs [2]*tracker.Directory
	for i := range dirs {
		s, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		dirs[i] = tracker.NewDirectory(tracker.Config{Store: s})
	}
	l := tracker.Listing{Host: "127.0.0.1:7777", Room: "r", Map: tracker.MapMeta{Name: "m", Seats: 2},
		Status: tracker.StatusWaiting, Engine: "tickwire", NetworkModel: "lockstep"}
	p, err := dirs[0].Publish(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	got, err := dirs[1].Browse(ctx, tracker.Filter{})
	if err != nil || len(got) != 1 || got[0].ID != p.ID {
		t.Fatalf("second tracker browses %v, %v", got, err)
	}
	l.Status = tracker.StatusInProgress
	if _, err := dirs[1].Update(ctx, p.ID, p.Token, l); err != nil {
		t.Fatalf("heartbeat through the other tracker: %v", err)
	}
	if got, _ := dirs[0].Browse(ctx, tracker.Filter{Status: tracker.StatusInProgress}); len(got) != 1 {
		t.Fatalf("update not seen: %v", got)
	}
	c, err := dirs[0].RegisterCode(ctx, tracker.CodeRequest{Host: "127.0.0.1:7777", Room: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := dirs[1].ResolveCode(ctx, c.Code); err != nil || e.Room != "r" {
		t.Fatalf("code through the other tracker: %+v, %v", e, err)
	}
	if err := dirs[1].Unpublish(ctx, p.ID, p.Token); err != nil {
		t.Fatal(err)
	}
	if got, _ := dirs[0].Browse(ctx, tracker.Filter{}); len(got) != 0 {
		t.Fatalf("unpublished listing still browsed: %v", got)
	}
}

func BenchmarkBrowse10kRedis(b *testing.B) {
	url := redistest.Start(b)
	s, err := Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BrowseLatency(b, tracker.NewDirectory(tracker.Config{Store: s, MaxListings: -1, TTL: time.Hour}))
}
