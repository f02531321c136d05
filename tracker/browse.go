package tracker

import (
	"context"
	"fmt"
	"sync"
)

// SourceError is one tracker a federated browse could not read.
type SourceError struct {
	URL string
	Err error
}

func (e SourceError) Error() string { return e.URL + ": " + e.Err.Error() }

// Clients checks a list of tracker URLs (at most MaxTrackers, each https://
// or loopback http://) and returns their clients.
func Clients(urls []string) ([]*Client, error) {
	if len(urls) > MaxTrackers {
		return nil, fmt.Errorf("%d trackers: %w", len(urls), ErrTooManyURLs)
	}
	cs := make([]*Client, 0, len(urls))
	for _, u := range urls {
		c, err := NewClient(u)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// Browse queries every tracker at once and merges their listings: each is
// tagged with the tracker it came from (Source), and a room listed by
// several trackers (same host and room) appears once, from the first
// tracker in the list that has it. Trackers that fail are reported in the
// second result and the others still count; ctx bounds the whole browse.
func Browse(ctx context.Context, clients []*Client, f Filter) ([]Listing, []SourceError) {
	results := make([][]Listing, len(clients))
	errs := make([]error, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { results[i], errs[i] = c.Browse(ctx, f) })
	}
	wg.Wait()
	type key struct{ host, room string }
	seen := make(map[key]bool)
	var out []Listing
	var failed []SourceError
	for i, ls := range results {
		if errs[i] != nil {
			failed = append(failed, SourceError{URL: clients[i].URL(), Err: errs[i]})
			continue
		}
		for _, l := range ls {
			k := key{l.Host, l.Room}
			if seen[k] {
				continue
			}
			seen[k] = true
			l.Source = clients[i].URL()
			out = append(out, l)
		}
	}
	return out, failed
}
