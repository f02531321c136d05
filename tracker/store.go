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
	ErrCodeTaken    = errors.New("tracker: join code already issued")
)

// Entry is a stored listing with the hash of its token.
type Entry struct {
	Listing   Listing `json:"listing"`
	TokenHash string  `json:"token_hash"`
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
	// fails with ErrFull when the store holds limit unexpired listings
	// (limit ≤ 0: no limit).
	Put(ctx context.Context, e Entry, now time.Time, create bool, limit int) error
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
