package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/server/join"
)

// fileConfig is server_config.toml: the seed's keys and one key for each
// flag of "tickwire relay". A key left out keeps its default (or the
// flag's value); a flag given on the command line overrides the file.
// Every key is in snake case under [relay] (see docs/serve.md for the list).
type fileConfig struct {
	Capabilities struct {
		// Relay = false disables game hosting: "tickwire relay" refuses
		// to start.
		Relay *bool `toml:"relay"`
	} `toml:"capabilities"`
	Relay relayFile `toml:"relay"`
}

// relayFile is the [relay] table.
type relayFile struct {
	Listen *string `toml:"listen"`
	Admin  *string `toml:"admin"`
	// AdminToken is the bearer token of the admin address.
	AdminToken *string `toml:"admin_token"`
	TickRate   *int    `toml:"tick_rate"`
	MaxGames   *int    `toml:"max_games"`
	MaxConns   *int    `toml:"max_conns"`
	// MaxRoomSize bounds a lockstep room's players.
	MaxRoomSize *int `toml:"max_room_size"`
	// WaitingRoomTimeout is a duration string ("2m", "90s"); "0s" never.
	WaitingRoomTimeout *duration `toml:"waiting_room_timeout"`
	MaxWaitingRooms    *int      `toml:"max_waiting_rooms_per_address"`
	MessageRate        *int      `toml:"message_rate"`
	MessageBurst       *int      `toml:"message_burst"`

	DefaultNetworkModel *string `toml:"default_network_model"`
	// AllowRequestedNetworkModel lets a join's requested model choose
	// the model of a room whose match type has none.
	AllowRequestedNetworkModel *bool                `toml:"allow_requested_network_model"`
	MatchTypes                 map[string]matchType `toml:"match_types"`
	FogAuth                    fogAuthFile          `toml:"fogauth"`
	Prediction                 predictionFile       `toml:"prediction"`
}

// matchType is a [relay.match_types.NAME] table.
type matchType struct {
	NetworkModel string `toml:"network_model"`
}

// fogAuthFile is the [relay.fogauth] table: the fog-authoritative
// model's settings (the seed's names). A zero field is unset.
type fogAuthFile struct {
	BandwidthPerClientKbps int `toml:"bandwidth_per_client_kbps"`
	MaxEntitiesPerUpdate   int `toml:"max_entities_per_update"`
	// PriorityStalenessBonus is nil when unset: 0 is a setting (no bonus).
	PriorityStalenessBonus *int `toml:"priority_staleness_bonus"`
	TickRate               int  `toml:"tick_rate"`
	MaxConcurrentGames     int  `toml:"max_concurrent_games"`
	// MaxSpectators is the spectators one room takes (0: none).
	MaxSpectators int `toml:"max_spectators"`
	// SpectatorFullMap lets spectators see the whole map (tournament
	// casting) instead of the union of the players' views.
	SpectatorFullMap bool `toml:"spectator_full_map"`
}

// duration is a time.Duration written as a string in TOML.
type duration struct{ time.Duration }

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// loadConfig reads and checks a server configuration file. hosted lists
// the network models this binary hosts. An unknown key or a bad value is
// an error naming the key.
func loadConfig(path string, hosted []string) (fileConfig, error) {
	var fc fileConfig
	md, err := toml.DecodeFile(path, &fc)
	if err != nil {
		return fc, fmt.Errorf("%s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return fc, fmt.Errorf("%s: unknown key %s", path, strings.Join(keys, ", "))
	}
	if err := fc.check(hosted); err != nil {
		return fc, fmt.Errorf("%s: %w", path, err)
	}
	return fc, nil
}

// check validates the values, naming the key of the first bad one.
func (fc *fileConfig) check(hosted []string) error {
	r := &fc.Relay
	if fc.Capabilities.Relay != nil && !*fc.Capabilities.Relay {
		return errors.New("capabilities.relay: false disables game hosting; tickwire relay has nothing to do")
	}
	ints := []struct {
		key      string
		v        *int
		min, max int
	}{
		{"relay.tick_rate", r.TickRate, 1, 1000},
		{"relay.max_games", r.MaxGames, -1, 1 << 30},
		{"relay.max_conns", r.MaxConns, 1, 1 << 30},
		{"relay.max_room_size", r.MaxRoomSize, 1, 64},
		{"relay.max_waiting_rooms_per_address", r.MaxWaitingRooms, -1, 1 << 30},
		{"relay.message_rate", r.MessageRate, 1, 1 << 20},
		{"relay.message_burst", r.MessageBurst, 1, 1 << 20},
	}
	for _, c := range ints {
		switch {
		case c.v == nil:
		case *c.v < c.min || *c.v > c.max:
			return fmt.Errorf("%s: %d is outside %d..%d", c.key, *c.v, c.min, c.max)
		case *c.v == 0 && c.min < 0:
			return fmt.Errorf("%s: 0 allows nothing; -1 means no limit", c.key)
		}
	}
	if d := r.WaitingRoomTimeout; d != nil && d.Duration < 0 {
		return fmt.Errorf("relay.waiting_room_timeout: %v is negative (0s means never)", d.Duration)
	}
	if r.DefaultNetworkModel != nil {
		if err := checkModel("relay.default_network_model", *r.DefaultNetworkModel, hosted); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(r.MatchTypes))
	for name := range r.MatchTypes {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		key := "relay.match_types." + name
		if len(name) > join.MaxModelName {
			return fmt.Errorf("%s: a match type has at most %d bytes", key, join.MaxModelName)
		}
		if err := checkModel(key+".network_model", r.MatchTypes[name].NetworkModel, hosted); err != nil {
			return err
		}
	}
	f := r.FogAuth
	for _, c := range []struct {
		key string
		v   int
	}{
		{"relay.fogauth.bandwidth_per_client_kbps", f.BandwidthPerClientKbps},
		{"relay.fogauth.max_entities_per_update", f.MaxEntitiesPerUpdate},
		{"relay.fogauth.tick_rate", f.TickRate},
		{"relay.fogauth.max_concurrent_games", f.MaxConcurrentGames},
	} {
		if c.v < 0 {
			return fmt.Errorf("%s: %d is negative", c.key, c.v)
		}
	}
	if b := f.PriorityStalenessBonus; b != nil && (*b < 0 || *b > fogauth.MaxStalenessBonus) {
		return fmt.Errorf("relay.fogauth.priority_staleness_bonus: %d is outside 0..%d", *b, fogauth.MaxStalenessBonus)
	}
	if f.MaxSpectators < 0 || f.MaxSpectators > 64 {
		return fmt.Errorf("relay.fogauth.max_spectators: %d is outside 0..64 (0 takes none)", f.MaxSpectators)
	}
	return r.Prediction.check()
}

// checkModel checks a network model name at key.
func checkModel(key, name string, hosted []string) error {
	switch {
	case name == "":
		return fmt.Errorf("%s: missing network model", key)
	case !slices.Contains(hosted, name):
		return fmt.Errorf("%s: unknown network model %q (want one of %s)", key, name, strings.Join(hosted, ", "))
	}
	return nil
}
