package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/server/join"
)

// fileConfig is server_config.toml: the seed's keys and one key for each
// flag of "tickwire serve". A key left out keeps its default (or the
// flag's value); a flag given on the command line overrides the file.
// Every key is in snake case under [relay] (see docs/serve.md for the list).
type fileConfig struct {
	Capabilities struct {
		// Relay = false disables game hosting: "tickwire serve" refuses
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
	// Readers is the number of sockets on the listen port, each with its
	// read loop (SO_REUSEPORT); 0 means 1.
	Readers *int `toml:"readers"`
	// MaxRoomSize bounds a lockstep room's players.
	MaxRoomSize *int `toml:"max_room_size"`
	// WaitingRoomTimeout is a duration string ("2m", "90s"); "0s" never.
	WaitingRoomTimeout *duration `toml:"waiting_room_timeout"`
	MaxWaitingRooms    *int      `toml:"max_waiting_rooms_per_address"`
	MaxConnsPerAddr    *int      `toml:"max_conns_per_addr"`
	MessageRate        *int      `toml:"message_rate"`
	MessageBurst       *int      `toml:"message_burst"`

	DefaultNetworkModel *string `toml:"default_network_model"`
	// AllowRequestedNetworkModel lets a join's requested model choose
	// the model of a room whose match type has none.
	AllowRequestedNetworkModel *bool                `toml:"allow_requested_network_model"`
	MatchTypes                 map[string]matchType `toml:"match_types"`

	// The operator's side (docs/serve.md): the match database, the
	// trackers to publish open rooms at, the address and region they
	// list, Agones, and how long SIGTERM lets running matches finish.
	DB             *string   `toml:"db"`
	Trackers       []string  `toml:"trackers"`
	TrackerToken   *string   `toml:"tracker_token"`
	PublicAddr     *string   `toml:"public_addr"`
	Region         *string   `toml:"region"`
	Agones         *bool     `toml:"agones"`
	AgonesOneMatch *bool     `toml:"agones_one_match"`
	DrainTimeout   *duration `toml:"drain_timeout"`
	// DebugLevel is lockstep rooms' desync debug level, 0..3; DesyncDir
	// receives their desync reports (--debug-level, --desync-dir).
	DebugLevel *int    `toml:"debug_level"`
	DesyncDir  *string `toml:"desync_dir"`
	// ReplayDir records every match there (--replay-dir).
	ReplayDir *string `toml:"replay_dir"`
	// A mode's own settings are its table, [relay.KEY] (mode.settings),
	// decoded into the mode by decodeModeTables.
}

// matchType is a [relay.match_types.NAME] table.
type matchType struct {
	NetworkModel string `toml:"network_model"`
	// DebugLevel overrides relay.debug_level for the lockstep rooms of
	// the match type.
	DebugLevel *int `toml:"debug_level"`
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

// loadConfig reads and checks a server configuration file, decoding each
// mode's table into the mode (ms). An unknown key or a bad value is an
// error naming the key.
func loadConfig(path string, ms []mode) (fileConfig, error) {
	var fc fileConfig
	text, err := os.ReadFile(path)
	if err != nil {
		return fc, err
	}
	md, err := toml.Decode(string(text), &fc)
	if err != nil {
		return fc, fmt.Errorf("%s: %w", path, err)
	}
	unknown, err := decodeModeTables(string(text), md.Undecoded(), ms)
	if err != nil {
		return fc, fmt.Errorf("%s: %w", path, err)
	}
	if len(unknown) > 0 {
		known := tomlKeys("", &fc)
		for _, m := range ms {
			if key, table := m.settings(); table != nil {
				known = append(known, tomlKeys("relay."+key+".", table)...)
			}
		}
		keys := make([]string, len(unknown))
		for i, k := range unknown {
			keys[i] = k.String()
			if s := closest(keys[i], known); s != "" {
				keys[i] += " (did you mean " + s + "?)"
			}
		}
		return fc, fmt.Errorf("%s: unknown key %s", path, strings.Join(keys, ", "))
	}
	hosted := make([]string, len(ms))
	for i, m := range ms {
		hosted[i] = m.modelName()
	}
	if err := fc.check(hosted); err != nil {
		return fc, fmt.Errorf("%s: %w", path, err)
	}
	for _, m := range ms {
		if _, table := m.settings(); table != nil {
			if err := table.check(); err != nil {
				return fc, fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	return fc, nil
}

// decodeModeTables decodes each mode's [relay.KEY] table of text into
// the mode, and returns the keys unknown to the file and to the modes:
// those of undecoded (the keys the file's own decoding left) outside
// every mode's table, and those of the modes' tables that no mode reads.
func decodeModeTables(text string, undecoded []toml.Key, ms []mode) ([]toml.Key, error) {
	var raw struct {
		Relay map[string]toml.Primitive `toml:"relay"`
	}
	md, err := toml.Decode(text, &raw)
	if err != nil {
		return nil, err
	}
	ours := func(k toml.Key) bool {
		for _, m := range ms {
			if key, table := m.settings(); table != nil && len(k) >= 2 && k[0] == "relay" && k[1] == key {
				return true
			}
		}
		return false
	}
	for _, m := range ms {
		key, table := m.settings()
		if p, ok := raw.Relay[key]; ok && table != nil {
			if err := md.PrimitiveDecode(p, table); err != nil {
				return nil, fmt.Errorf("relay.%s: %w", key, err)
			}
		}
	}
	unknown := slices.DeleteFunc(slices.Clone(undecoded), ours)
	for _, k := range md.Undecoded() {
		if ours(k) {
			unknown = append(unknown, k)
		}
	}
	return unknown, nil
}

// check validates the values, naming the key of the first bad one.
func (fc *fileConfig) check(hosted []string) error {
	r := &fc.Relay
	if fc.Capabilities.Relay != nil && !*fc.Capabilities.Relay {
		return errors.New("capabilities.relay: false disables game hosting; tickwire serve has nothing to do")
	}
	ints := []struct {
		key      string
		v        *int
		min, max int
	}{
		{"relay.tick_rate", r.TickRate, 1, 1000},
		{"relay.max_games", r.MaxGames, -1, 1 << 30},
		{"relay.max_conns", r.MaxConns, 1, 1 << 30},
		{"relay.readers", r.Readers, 0, maxReaders},
		{"relay.max_room_size", r.MaxRoomSize, 1, 64},
		{"relay.max_waiting_rooms_per_address", r.MaxWaitingRooms, -1, 1 << 30},
		{"relay.message_rate", r.MessageRate, 1, 1 << 20},
		{"relay.message_burst", r.MessageBurst, 1, 1 << 20},
		{"relay.debug_level", r.DebugLevel, 0, msg.MaxDebugLevel},
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
	if r.ReplayDir != nil && *r.ReplayDir == "" {
		return errors.New("relay.replay_dir: empty; leave the key out to record no replays")
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
		if l := r.MatchTypes[name].DebugLevel; l != nil && (*l < 0 || *l > msg.MaxDebugLevel) {
			return fmt.Errorf("%s.debug_level: %d is outside 0..%d", key, *l, msg.MaxDebugLevel)
		}
	}
	return nil
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
