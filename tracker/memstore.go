package tracker

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"
)

// MemoryStore is the in-process Store: one tracker instance, no
// dependency. The zero value is ready to use.
type MemoryStore struct {
	mu       sync.Mutex
	listings map[string]Entry
	codes    map[string]CodeEntry
}

// sweep drops expired entries; mu held.
func (s *MemoryStore) sweep(now time.Time) {
	for id, e := range s.listings {
		if !now.Before(e.Listing.Expires) {
			delete(s.listings, id)
		}
	}
	for c, e := range s.codes {
		if !now.Before(e.Expires) {
			delete(s.codes, c)
		}
	}
}

func (s *MemoryStore) Put(_ context.Context, e Entry, now time.Time, create bool, lim Limits) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listings == nil {
		s.listings = make(map[string]Entry)
	}
	if create {
		s.sweep(now)
		if lim.Total > 0 && len(s.listings) >= lim.Total {
			return ErrFull
		}
		byPublisher, byKey := 0, 0
		for _, o := range s.listings {
			if e.Publisher != "" && o.Publisher == e.Publisher {
				byPublisher++
			}
			if e.Listing.ServerKey != "" && o.Listing.ServerKey == e.Listing.ServerKey {
				byKey++
			}
		}
		if (lim.PerPublisher > 0 && byPublisher >= lim.PerPublisher) || (lim.PerServerKey > 0 && byKey >= lim.PerServerKey) {
			return ErrSourceFull
		}
	} else if old, ok := s.listings[e.Listing.ID]; !ok || !now.Before(old.Listing.Expires) {
		return ErrNotFound
	}
	s.listings[e.Listing.ID] = e
	return nil
}

func (s *MemoryStore) Get(_ context.Context, id string, now time.Time) (Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.listings[id]
	if !ok || !now.Before(e.Listing.Expires) {
		return Entry{}, ErrNotFound
	}
	return e, nil
}

func (s *MemoryStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.listings[id]; !ok {
		return ErrNotFound
	}
	delete(s.listings, id)
	return nil
}

func (s *MemoryStore) List(_ context.Context, now time.Time) ([]Listing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(now)
	out := make([]Listing, 0, len(s.listings))
	for _, id := range slices.Sorted(maps.Keys(s.listings)) {
		out = append(out, s.listings[id].Listing)
	}
	return out, nil
}

func (s *MemoryStore) PutCode(_ context.Context, code string, c CodeEntry, now time.Time, limit int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.codes == nil {
		s.codes = make(map[string]CodeEntry)
	}
	if old, ok := s.codes[code]; ok && now.Before(old.Expires) {
		return ErrCodeTaken
	}
	s.sweep(now)
	if limit > 0 && len(s.codes) >= limit {
		return ErrFull
	}
	s.codes[code] = c
	return nil
}

func (s *MemoryStore) TakeCode(_ context.Context, code string, now time.Time) (CodeEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.codes[code]
	if !ok || !now.Before(c.Expires) {
		delete(s.codes, code)
		return CodeEntry{}, ErrCodeNotFound
	}
	if !c.MultiUse {
		delete(s.codes, code)
	}
	return c, nil
}
