package tracker

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// Publisher keeps a server's rooms listed at a set of trackers: each Sync
// publishes new rooms, heartbeats listed ones (republishing a listing the
// tracker lost, after its expiry or a restart) and unpublishes rooms that
// are gone. Run calls Sync on an interval and unpublishes everything when
// it ends.
type Publisher struct {
	// Clients are the trackers.
	Clients []*Client
	// Rooms returns the listings to keep published now (Host and Room
	// identify one).
	Rooms func() []Listing
	// Interval is the time between syncs; 0 means 10 s (a third of the
	// default TTL).
	Interval time.Duration
	// Logger receives failures; nil discards.
	Logger *slog.Logger

	listed map[pubKey]pubState
}

type pubKey struct {
	tracker    int
	host, room string
}

type pubState struct{ id, token string }

// Sync brings every tracker in line with Rooms once. It returns the first
// error met; the other trackers and rooms are still synced.
func (p *Publisher) Sync(ctx context.Context) error {
	if p.listed == nil {
		p.listed = make(map[pubKey]pubState)
	}
	want := make(map[pubKey]Listing)
	for _, l := range p.Rooms() {
		for i := range p.Clients {
			want[pubKey{i, l.Host, l.Room}] = l
		}
	}
	var first error
	note := func(err error) {
		if err != nil && first == nil {
			first = err
		}
		if err != nil && p.Logger != nil {
			p.Logger.Warn("tracker publish failed", "err", err)
		}
	}
	for k, st := range p.listed {
		if _, ok := want[k]; !ok {
			err := p.Clients[k.tracker].Unpublish(ctx, st.id, st.token)
			if err == nil || errors.Is(err, ErrNotFound) {
				delete(p.listed, k)
				err = nil
			}
			note(err)
		}
	}
	for k, l := range want {
		c := p.Clients[k.tracker]
		if st, ok := p.listed[k]; ok {
			err := c.Update(ctx, st.id, st.token, l)
			if err == nil {
				continue
			}
			if !errors.Is(err, ErrNotFound) {
				note(err)
				continue
			}
			delete(p.listed, k) // the tracker lost it: publish again
		}
		pub, err := c.Publish(ctx, l)
		if err != nil {
			note(err)
			continue
		}
		p.listed[k] = pubState{pub.ID, pub.Token}
	}
	return first
}

// Run syncs until ctx ends, then unpublishes every listing (waiting at most
// 2 s for the trackers).
func (p *Publisher) Run(ctx context.Context) {
	every := p.Interval
	if every <= 0 {
		every = 10 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		p.Sync(ctx)
		select {
		case <-ctx.Done():
			end, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			rooms := p.Rooms
			p.Rooms = func() []Listing { return nil }
			p.Sync(end)
			p.Rooms = rooms
			return
		case <-t.C:
		}
	}
}
