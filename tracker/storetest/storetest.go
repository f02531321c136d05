// Package storetest is the conformance test every tracker.Store passes:
// the memory store and the Redis store run the same cases.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tickwire/tickwire/tracker"
)

func listing(id string, expires time.Time) tracker.Entry {
	return tracker.Entry{TokenHash: "h-" + id, Listing: tracker.Listing{ID: id, Host: "127.0.0.1:7777", Room: "r" + id,
		Map: tracker.MapMeta{Name: "m", Seats: 4}, Status: tracker.StatusWaiting, Engine: "e", NetworkModel: "lockstep", Expires: expires}}
}

// Run checks a store. newStore returns an empty store; now is a time the
// store's backend agrees is the present (a Redis store expires keys on
// its own clock).
func Run(t *testing.T, newStore func(t *testing.T) tracker.Store, now time.Time) {
	ctx := context.Background()
	t.Run("put get list delete", func(t *testing.T) {
		s := newStore(t)
		for i := range 3 {
			if err := s.Put(ctx, listing(fmt.Sprint(i), now.Add(time.Minute)), now, true, 0); err != nil {
				t.Fatal(err)
			}
		}
		e, err := s.Get(ctx, "1", now)
		if err != nil || e.Listing.Room != "r1" || e.TokenHash != "h-1" {
			t.Fatalf("Get = %+v, %v", e, err)
		}
		ls, err := s.List(ctx, now)
		if err != nil || len(ls) != 3 || ls[0].ID != "0" || ls[2].ID != "2" {
			t.Fatalf("List = %v, %v", ls, err)
		}
		if err := s.Delete(ctx, "1"); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, "1"); !errors.Is(err, tracker.ErrNotFound) {
			t.Fatalf("second Delete = %v", err)
		}
		if _, err := s.Get(ctx, "1", now); !errors.Is(err, tracker.ErrNotFound) {
			t.Fatalf("Get deleted = %v", err)
		}
	})
	t.Run("update needs an existing listing", func(t *testing.T) {
		s := newStore(t)
		if err := s.Put(ctx, listing("x", now.Add(time.Minute)), now, false, 0); !errors.Is(err, tracker.ErrNotFound) {
			t.Fatalf("update of a missing listing = %v", err)
		}
	})
	t.Run("expiry", func(t *testing.T) {
		s := newStore(t)
		s.Put(ctx, listing("old", now.Add(100*time.Millisecond)), now, true, 0)
		s.Put(ctx, listing("new", now.Add(time.Minute)), now, true, 0)
		later := now.Add(200 * time.Millisecond)
		if _, err := s.Get(ctx, "old", later); !errors.Is(err, tracker.ErrNotFound) {
			t.Fatalf("expired Get = %v", err)
		}
		ls, _ := s.List(ctx, later)
		if len(ls) != 1 || ls[0].ID != "new" {
			t.Fatalf("List after expiry = %v", ls)
		}
		if err := s.Put(ctx, listing("old", later.Add(time.Minute)), later, false, 0); !errors.Is(err, tracker.ErrNotFound) {
			t.Fatalf("heartbeat of an expired listing = %v", err)
		}
	})
	t.Run("limit, concurrently", func(t *testing.T) {
		s := newStore(t)
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, full := 0, 0
		for i := range 40 {
			wg.Go(func() {
				err := s.Put(ctx, listing(fmt.Sprint(i), now.Add(time.Minute)), now, true, 25)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, tracker.ErrFull):
					full++
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if ok != 25 || full != 15 {
			t.Fatalf("%d stored, %d refused; want 25 and 15", ok, full)
		}
	})
	t.Run("codes", func(t *testing.T) {
		s := newStore(t)
		single := tracker.CodeEntry{Host: "127.0.0.1:1", Room: "a", Expires: now.Add(time.Minute)}
		multi := tracker.CodeEntry{Host: "127.0.0.1:2", Room: "b", MultiUse: true, Expires: now.Add(time.Minute)}
		if err := s.PutCode(ctx, "TICK-AAAA", single, now, 0); err != nil {
			t.Fatal(err)
		}
		if err := s.PutCode(ctx, "TICK-AAAA", multi, now, 0); !errors.Is(err, tracker.ErrCodeTaken) {
			t.Fatalf("second PutCode = %v", err)
		}
		s.PutCode(ctx, "TICK-BBBB", multi, now, 0)
		if err := s.PutCode(ctx, "TICK-CCCC", multi, now, 2); !errors.Is(err, tracker.ErrFull) {
			t.Fatalf("PutCode past the limit = %v", err)
		}
		// Many resolvers race for a single-use code: exactly one wins.
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for range 20 {
			wg.Go(func() {
				c, err := s.TakeCode(ctx, "TICK-AAAA", now)
				mu.Lock()
				defer mu.Unlock()
				if err == nil && c.Room == "a" {
					won++
				} else if !errors.Is(err, tracker.ErrCodeNotFound) {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if won != 1 {
			t.Fatalf("a single-use code resolved %d times", won)
		}
		for range 3 {
			if c, err := s.TakeCode(ctx, "TICK-BBBB", now); err != nil || c.Room != "b" {
				t.Fatalf("multi-use TakeCode = %+v, %v", c, err)
			}
		}
		if _, err := s.TakeCode(ctx, "TICK-BBBB", now.Add(2*time.Minute)); !errors.Is(err, tracker.ErrCodeNotFound) {
			t.Fatalf("expired code = %v", err)
		}
	})
}
