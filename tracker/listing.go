package tracker

import (
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Limits on what a listing may hold, so that a listing and a browse answer
// stay small whatever a publisher sends.
const (
	maxString     = 128 // any string field, in bytes
	maxPlayers    = 256 // entries of Players
	maxBodyBytes  = 16 << 10
	maxListedRoom = 64 // bytes of a room name (the server's own bound)
)

// Listing statuses.
const (
	StatusWaiting    = "waiting"
	StatusInProgress = "in_progress"
	StatusFull       = "full"
)

// Listing is one published room: the seed's GameListing.
type Listing struct {
	// ID is the tracker's id of the listing (set by the tracker).
	ID string `json:"id,omitempty"`
	// Host is the server's address (host:port) or a join code.
	Host string `json:"host"`
	// Room is the room's name on that server.
	Room string `json:"room,omitempty"`
	// ServerKey is the server's Ed25519 public key in hex, which a client
	// pins; "" for a plaintext server.
	ServerKey string    `json:"server_key,omitempty"`
	Map       MapMeta   `json:"map"`
	Rules     RulesMeta `json:"rules"`
	Players   []Player  `json:"players"`
	// Status is waiting, in_progress or full.
	Status string `json:"status"`
	// Engine names the game ("tickwire-rts", …) for cross-game browsers.
	Engine string `json:"engine"`
	// NetworkModel is the server-asserted model of the room (lockstep,
	// fog_authoritative, prediction, state_sync).
	NetworkModel string `json:"network_model"`
	// Region is the server's region ("eu-west", …), "" if unknown.
	Region string `json:"region,omitempty"`
	// Expires is when the listing goes without a heartbeat (set by the
	// tracker).
	Expires time.Time `json:"expires,omitzero"`
	// Source is the tracker a federated browse found the listing at (set
	// by Browse, never by a tracker).
	Source string `json:"source,omitempty"`
}

// MapMeta describes a listing's map.
type MapMeta struct {
	Name string `json:"name"`
	Hash string `json:"hash,omitempty"`
	// Seats is how many players the room takes.
	Seats int `json:"seats"`
}

// RulesMeta describes a listing's rules.
type RulesMeta struct {
	Mod     string `json:"mod,omitempty"`
	Version string `json:"version,omitempty"`
}

// Player is a player in a listed room.
type Player struct {
	Name string `json:"name"`
}

// FreeSeats is how many more players the room takes.
func (l *Listing) FreeSeats() int { return max(l.Map.Seats-len(l.Players), 0) }

// Validate checks a listing as a publisher sent it and names the first
// field that is wrong.
func (l *Listing) Validate() error {
	if err := validHost(l.Host); err != nil {
		return err
	}
	strs := []struct{ name, v string }{
		{"room", l.Room}, {"map.name", l.Map.Name}, {"map.hash", l.Map.Hash},
		{"rules.mod", l.Rules.Mod}, {"rules.version", l.Rules.Version},
		{"engine", l.Engine}, {"network_model", l.NetworkModel}, {"region", l.Region},
	}
	for _, s := range strs {
		if len(s.v) > maxString {
			return fieldError(s.name, "longer than %d bytes", maxString)
		}
	}
	if len(l.Room) > maxListedRoom {
		return fieldError("room", "longer than %d bytes", maxListedRoom)
	}
	if l.ServerKey != "" {
		if b, err := hex.DecodeString(l.ServerKey); err != nil || len(b) != 32 {
			return fieldError("server_key", "not a 32-byte hex key")
		}
	}
	if l.Map.Seats < 1 || l.Map.Seats > maxPlayers {
		return fieldError("map.seats", "must be 1..%d", maxPlayers)
	}
	if len(l.Players) > l.Map.Seats {
		return fieldError("players", "more players than seats")
	}
	for i, p := range l.Players {
		if len(p.Name) > maxString {
			return fieldError("players["+strconv.Itoa(i)+"].name", "longer than %d bytes", maxString)
		}
	}
	switch l.Status {
	case StatusWaiting, StatusInProgress, StatusFull:
	default:
		return fieldError("status", "must be waiting, in_progress or full")
	}
	if l.Engine == "" {
		return fieldError("engine", "missing")
	}
	if l.NetworkModel == "" {
		return fieldError("network_model", "missing")
	}
	return nil
}

// validHost accepts host:port (a name or an address) or a join code.
func validHost(h string) error {
	if h == "" {
		return fieldError("host", "missing")
	}
	if len(h) > maxString {
		return fieldError("host", "longer than %d bytes", maxString)
	}
	if strings.HasPrefix(strings.ToUpper(h), "TICK") {
		if _, err := ParseCode(h); err != nil {
			return fieldError("host", "not a join code (TICK-XXXX)")
		}
		return nil
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil || host == "" {
		return fieldError("host", "not host:port or a join code")
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return fieldError("host", "bad port")
	}
	return nil
}

// FieldError is a listing or request field that is wrong.
type FieldError struct {
	Field, Problem string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Problem }

func fieldError(field, format string, args ...any) error {
	return &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// Filter selects listings in a browse; a zero field matches everything.
type Filter struct {
	Map, Mod, Version, NetworkModel, Status, Region, Engine string
	// FreeSeats is the fewest free seats a listing must have.
	FreeSeats int
}

// Match reports whether l passes f. Strings compare case-insensitively.
func (f Filter) Match(l *Listing) bool {
	eq := func(want, have string) bool { return want == "" || strings.EqualFold(want, have) }
	return eq(f.Map, l.Map.Name) && eq(f.Mod, l.Rules.Mod) && eq(f.Version, l.Rules.Version) &&
		eq(f.NetworkModel, l.NetworkModel) && eq(f.Status, l.Status) && eq(f.Region, l.Region) &&
		eq(f.Engine, l.Engine) && l.FreeSeats() >= f.FreeSeats
}
