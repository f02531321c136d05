package tracker

import (
	"context"
	"errors"
	"time"
)

// Errors of the directory and its stores, for errors.Is.
var (
	ErrNotFound     = errors.New("tracker: no such listing")
	ErrCodeNotFound = errors.New("tracker: no such join code (expired, used or never issued)")
	ErrBadToken     = errors.New("tracker: wrong or missing listing token")
	ErrFull         = errors.New("tracker: listing limit reached")
	// ErrSourceFull is a publisher (a client address, or a server key)
	// with as many listings as Limits allow one.
	ErrSourceFull = errors.New("tracker: listing limit of the source reached")
	ErrCodeTaken  = errors.New("tracker: join code already issued")
	// ErrUnverified is a listing whose server did not prove it holds the
	// listing's server key (HandlerConfig.Verify).
	ErrUnverified = errors.New("tracker: the listed server did not prove its key")
)

// Entry is a stored listing with the hash of its token and who published
// it.
type Entry struct {
	Listing   Listing `json:"listing"`
	TokenHash string  `json:"token_hash"`
	// Publisher is the client address that published it ("" unknown).
	Publisher string `json:"publisher,omitempty"`
}

// Limits bound the listings a Put that creates one may reach; a field ≤ 0
// is no limit.
type Limits struct {
	// Total bounds every unexpired listing (ErrFull).
	Total int
	// PerPublisher bounds the listings of one Entry.Publisher, and
	// PerServerKey those of one non-empty Listing.ServerKey
	// (ErrSourceFull): one address or one server cannot fill the
	// directory.
	PerPublisher, PerServerKey int
}

// CodeEntry is what a join code resolves to.
type CodeEntry struct {
	Host         string    `json:"host"`
	Room         string    `json:"room,omitempty"`
	ServerKey    string    `json:"server_key,omitempty"`
	NetworkModel string    `json:"network_model,omitempty"`
	MultiUse     bool      `json:"multi_use,omitempty"`
	Expires      time.Time `json:"expires"`
}

// Store keeps listings and join codes until they expire. Expiry is the
// entry's own Expires against the now the caller passes; a store may
// delete expired entries lazily. Implementations are safe for concurrent
// use.
type Store interface {
	// Put creates or replaces the listing e.Listing.ID. With create set it
	// fails with ErrFull or ErrSourceFull when the listing would pass lim.
	// A replacement keeps e's Publisher and ServerKey (the caller
	// carries them over).
	Put(ctx context.Context, e Entry, now time.Time, create bool, lim Limits) error
	// Get returns the unexpired listing id or ErrNotFound.
	Get(ctx context.Context, id string, now time.Time) (Entry, error)
	// Delete removes listing id; a missing one is ErrNotFound.
	Delete(ctx context.Context, id string) error
	// List returns every unexpired listing.
	List(ctx context.Context, now time.Time) ([]Listing, error)
	// PutCode registers a new code; an unexpired code is ErrCodeTaken,
	// and limit unexpired codes (limit ≤ 0: no limit) ErrFull.
	PutCode(ctx context.Context, code string, c CodeEntry, now time.Time, limit int) error
	// TakeCode returns what code resolves to and, unless it is multi-use,
	// deletes it in the same step (two resolvers never both get a
	// single-use code); a missing or expired code is ErrCodeNotFound.
	TakeCode(ctx context.Context, code string, now time.Time) (CodeEntry, error)
}

// Pinger is a Store with a backend that can be out of reach (Redis): the
// tracker's /readyz fails while Ping does.
type Pinger interface {
	Ping(ctx context.Context) error
}

// SharedLimiter is a Store that keeps rate limits for every tracker
// instance sharing it: Allow takes one of r's tokens for key at now, or
// tells how long until one.
type SharedLimiter interface {
	Allow(ctx context.Context, key string, r Rate, now time.Time) (bool, time.Duration, error)
}
