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
			if err := s.Put(ctx, listing(fmt.Sprint(i), now.Add(time.Minute)), now, true, tracker.Limits{}); err != nil {
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
		if err := s.Put(ctx, listing("x", now.Add(time.Minute)), now, false, tracker.Limits{}); !errors.Is(err, tracker.ErrNotFound) {
			t.Fatalf("update of a missing listing = %v", err)
		}
	})
	t.Run("expiry", func(t *testing.T) {
		s := newStore(t)
		s.Put(ctx, listing("old", now.Add(100*time.Millisecond)), now, true, tracker.Limits{})
		s.Put(ctx, listing("new", now.Add(time.Minute)), now, true, tracker.Limits{})
		later := now.Add(200 * time.Millisecond)
		if _, err := s.Get(ctx, "old", later); !errors.Is(err, tracker.ErrNotFound) {
			t.Fatalf("expired Get = %v", err)
		}
		ls, _ := s.List(ctx, later)
		if len(ls) != 1 || ls[0].ID != "new" {
			t.Fatalf("List after expiry = %v", ls)
		}
		if err := s.Put(ctx, listing("old", later.Add(time.Minute)), later, false, tracker.Limits{}); !errors.Is(err, tracker.ErrNotFound) {
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
				err := s.Put(ctx, listing(fmt.Sprint(i), now.Add(time.Minute)), now, true, tracker.Limits{Total: 25})
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
	t.Run("limits per publisher and per server key", func(t *testing.T) {
		s := newStore(t)
		lim := tracker.Limits{PerPublisher: 2, PerServerKey: 3}
		put := func(id, publisher, key string) error {
			e := listing(id, now.Add(time.Minute))
			e.Publisher, e.Listing.ServerKey = publisher, key
			return s.Put(ctx, e, now, true, lim)
		}
		for _, c := range []struct {
			id, publisher, key string
			want               error
		}{
			{"a1", "10.0.0.1", "", nil},
			{"a2", "10.0.0.1", "", nil},
			{"a3", "10.0.0.1", "", tracker.ErrSourceFull}, // the address's third
			{"b1", "10.0.0.2", "k1", nil},
			{"c1", "10.0.0.3", "k1", nil},
			{"d1", "10.0.0.4", "k1", nil},
			{"e1", "10.0.0.5", "k1", tracker.ErrSourceFull}, // the key's fourth
			{"e2", "10.0.0.5", "k2", nil},
			{"f1", "", "", nil}, // unknown publisher, no key: only the total counts
			{"f2", "", "", nil},
			{"f3", "", "", nil},
		} {
			if err := put(c.id, c.publisher, c.key); !errors.Is(err, c.want) && err != c.want {
				t.Fatalf("%s from %q key %q: %v, want %v", c.id, c.publisher, c.key, err, c.want)
			}
		}
		// A heartbeat is no new listing.
		e := listing("a1", now.Add(2*time.Minute))
		e.Publisher = "10.0.0.1"
		if err := s.Put(ctx, e, now, false, lim); err != nil {
			t.Fatalf("heartbeat at the limit: %v", err)
		}
		// Unpublishing frees a place of its source.
		if err := s.Delete(ctx, "a2"); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, "b1"); err != nil {
			t.Fatal(err)
		}
		if err := put("a3", "10.0.0.1", ""); err != nil {
			t.Fatalf("after an unpublish: %v", err)
		}
		if err := put("e1", "10.0.0.5", "k1"); err != nil {
			t.Fatalf("after an unpublish of the key's: %v", err)
		}
		// Expired listings count no more.
		later := now.Add(3 * time.Minute)
		e = listing("a9", later.Add(time.Minute))
		e.Publisher = "10.0.0.1"
		if err := s.Put(ctx, e, later, true, lim); err != nil {
			t.Fatalf("after the address's listings expired: %v", err)
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
