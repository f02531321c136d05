package tracker

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"time"
)

// Config configures a Directory. The zero value is the seed's defaults: a
// memory store, 30 s TTL, 1,000 listings.
type Config struct {
	// Store holds the listings; nil means a new MemoryStore.
	Store Store
	// TTL is how long a listing lives without a heartbeat; 0 means 30 s.
	TTL time.Duration
	// MaxListings bounds the listings; 0 means 1,000, -1 no limit.
	MaxListings int
	// MaxPerPublisher bounds the listings one client address publishes
	// (0 means 16), MaxPerServerKey those naming one server key (0 means
	// 64); -1 is no limit. With them a flood from a few addresses or one
	// key cannot take the whole directory.
	MaxPerPublisher, MaxPerServerKey int
	// MaxCodes bounds the unexpired join codes; 0 means 4 × MaxListings
	// (4,000 by default), -1 no limit.
	MaxCodes int
	// CodeTTL is a join code's default and longest life; 0 means 10 min.
	CodeTTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (c Config) withDefaults() Config {
	if c.Store == nil {
		c.Store = &MemoryStore{}
	}
	if c.TTL <= 0 {
		c.TTL = 30 * time.Second
	}
	if c.MaxListings == 0 {
		c.MaxListings = 1000
	}
	if c.MaxPerPublisher == 0 {
		c.MaxPerPublisher = 16
	}
	if c.MaxPerServerKey == 0 {
		c.MaxPerServerKey = 64
	}
	if c.MaxCodes == 0 {
		c.MaxCodes = 4 * max(c.MaxListings, 1000)
	}
	if c.CodeTTL <= 0 {
		c.CodeTTL = 10 * time.Minute
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Directory is the tracking server's logic: listings and join codes over a
// Store. It is safe for concurrent use (the Store is).
type Directory struct {
	cfg Config
}

// NewDirectory returns a directory with cfg.
func NewDirectory(cfg Config) *Directory { return &Directory{cfg: cfg.withDefaults()} }

// TTL is how long a listing lives without a heartbeat.
func (d *Directory) TTL() time.Duration { return d.cfg.TTL }

// Published is the answer to a publish.
type Published struct {
	ID      string    `json:"id"`
	Token   string    `json:"token,omitempty"`
	Expires time.Time `json:"expires"`
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func hashToken(t string) string {
	h := sha256.Sum256([]byte(t))
	return hex.EncodeToString(h[:])
}

// Publish adds l and returns its id and the token later calls present.
func (d *Directory) Publish(ctx context.Context, l Listing) (Published, error) {
	return d.PublishFrom(ctx, "", l)
}

// PublishFrom adds l published from address publisher (a client's IP
// address; "" unknown), within the per-publisher and per-server-key
// limits.
func (d *Directory) PublishFrom(ctx context.Context, publisher string, l Listing) (Published, error) {
	if err := l.Validate(); err != nil {
		return Published{}, err
	}
	now := d.cfg.Now()
	p := Published{ID: randomHex(8), Token: randomHex(24), Expires: now.Add(d.cfg.TTL)}
	l.ID, l.Expires, l.Source = p.ID, p.Expires, ""
	lim := Limits{Total: d.cfg.MaxListings, PerPublisher: d.cfg.MaxPerPublisher, PerServerKey: d.cfg.MaxPerServerKey}
	if err := d.cfg.Store.Put(ctx, Entry{Listing: l, TokenHash: hashToken(p.Token), Publisher: publisher}, now, true, lim); err != nil {
		return Published{}, err
	}
	return p, nil
}

// authorize returns listing id if token is its token.
func (d *Directory) authorize(ctx context.Context, id, token string, now time.Time) (Entry, error) {
	e, err := d.cfg.Store.Get(ctx, id, now)
	if err != nil {
		return Entry{}, err
	}
	if token == "" || subtle.ConstantTimeCompare([]byte(hashToken(token)), []byte(e.TokenHash)) != 1 {
		return Entry{}, ErrBadToken
	}
	return e, nil
}

// Update replaces listing id with l (a heartbeat when l is unchanged) and
// renews its TTL.
func (d *Directory) Update(ctx context.Context, id, token string, l Listing) (Published, error) {
	if err := l.Validate(); err != nil {
		return Published{}, err
	}
	now := d.cfg.Now()
	e, err := d.authorize(ctx, id, token, now)
	if err != nil {
		return Published{}, err
	}
	if l.ServerKey != e.Listing.ServerKey {
		return Published{}, fieldError("server_key", "differs from the published listing's: publish it anew")
	}
	l.ID, l.Expires, l.Source = id, now.Add(d.cfg.TTL), ""
	e.Listing = l
	if err := d.cfg.Store.Put(ctx, e, now, false, Limits{}); err != nil {
		return Published{}, err
	}
	return Published{ID: id, Expires: l.Expires}, nil
}

// Unpublish removes listing id.
func (d *Directory) Unpublish(ctx context.Context, id, token string) error {
	if _, err := d.authorize(ctx, id, token, d.cfg.Now()); err != nil {
		return err
	}
	return d.cfg.Store.Delete(ctx, id)
}

// Ping is nil when the store answers (always, but for a store with a
// backend out of reach: Pinger).
func (d *Directory) Ping(ctx context.Context) error {
	if p, ok := d.cfg.Store.(Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// Browse returns the unexpired listings that pass f, ordered by id.
func (d *Directory) Browse(ctx context.Context, f Filter) ([]Listing, error) {
	all, err := d.cfg.Store.List(ctx, d.cfg.Now())
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for i := range all {
		if f.Match(&all[i]) {
			out = append(out, all[i])
		}
	}
	return out, nil
}

// CodeRequest registers a join code for a room.
type CodeRequest struct {
	Host         string `json:"host"`
	Room         string `json:"room,omitempty"`
	ServerKey    string `json:"server_key,omitempty"`
	NetworkModel string `json:"network_model,omitempty"`
	// TTLSeconds is the code's life; 0 or more than the directory's
	// CodeTTL means CodeTTL.
	TTLSeconds int  `json:"ttl_seconds,omitempty"`
	MultiUse   bool `json:"multi_use,omitempty"`
}

// Code is an issued join code.
type Code struct {
	Code    string    `json:"code"`
	Expires time.Time `json:"expires"`
}

// RegisterCode issues a new join code for r.
func (d *Directory) RegisterCode(ctx context.Context, r CodeRequest) (Code, error) {
	// A code names a server directly: the host must be an address.
	probe := Listing{Host: r.Host, Room: r.Room, ServerKey: r.ServerKey, NetworkModel: r.NetworkModel,
		Map: MapMeta{Seats: 1}, Status: StatusWaiting, Engine: "x"}
	if probe.NetworkModel == "" {
		probe.NetworkModel = "x"
	}
	if err := probe.Validate(); err != nil {
		return Code{}, err
	}
	if _, err := ParseCode(r.Host); err == nil {
		return Code{}, fieldError("host", "a join code cannot name another join code")
	}
	if r.TTLSeconds < 0 {
		return Code{}, fieldError("ttl_seconds", "negative")
	}
	ttl := d.cfg.CodeTTL
	if r.TTLSeconds > 0 && time.Duration(r.TTLSeconds)*time.Second < ttl {
		ttl = time.Duration(r.TTLSeconds) * time.Second
	}
	now := d.cfg.Now()
	c := CodeEntry{Host: r.Host, Room: r.Room, ServerKey: r.ServerKey, NetworkModel: r.NetworkModel,
		MultiUse: r.MultiUse, Expires: now.Add(ttl)}
	// A clash with a live code draws again; 810,000 codes make a run of
	// clashes a sign of a full store.
	for range 8 {
		code := NewCode()
		err := d.cfg.Store.PutCode(ctx, code, c, now, d.cfg.MaxCodes)
		if errors.Is(err, ErrCodeTaken) {
			continue
		}
		if err != nil {
			return Code{}, err
		}
		return Code{Code: code, Expires: c.Expires}, nil
	}
	return Code{}, ErrFull
}

// ResolveCode returns what code names; a single-use code is used up.
func (d *Directory) ResolveCode(ctx context.Context, code string) (CodeEntry, error) {
	c, err := ParseCode(code)
	if err != nil {
		return CodeEntry{}, err
	}
	return d.cfg.Store.TakeCode(ctx, c, d.cfg.Now())
}
