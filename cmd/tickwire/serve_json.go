package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// serveSettings are what "tickwire serve" runs with: --check-config's
// line, and the start of the startup line.
type serveSettings struct {
	Listen              string   `json:"listen"`
	Readers             int      `json:"readers"`
	Admin               string   `json:"admin"`
	TickRate            int      `json:"tick_rate"`
	MaxGames            int      `json:"max_games"`
	NetworkModels       []string `json:"network_models"`
	DefaultNetworkModel string   `json:"default_network_model"`
}

// serveStartup is serve --json's startup line: the addresses it listens
// on (the bound ones) and the keys clients pin and verify results with.
type serveStartup struct {
	serveSettings
	Dashboard      string `json:"dashboard,omitempty"`
	Play           string `json:"play,omitempty"`
	Encrypted      bool   `json:"encrypted"`
	PublicKey      string `json:"public_key"` // "" with --insecure
	MatchResultKey string `json:"match_result_key"`
	TokensRequired bool   `json:"tokens_required"`
}

func (f *serveFlags) settings() serveSettings {
	return serveSettings{Listen: f.listen, Readers: max(f.readers, 1), Admin: f.admin, TickRate: f.tps, MaxGames: f.maxGames,
		NetworkModels: hostedModels(), DefaultNetworkModel: f.defaultModel}
}

// startup is the startup line before the server binds: the addresses
// asked for.
func (f *serveFlags) startup() serveStartup { return serveStartup{serveSettings: f.settings()} }

// printConfigOK prints --check-config's line: with --json
// {"configuration": "ok", …the settings}.
func (f *serveFlags) printConfigOK(w io.Writer) error {
	s := f.settings()
	if f.json {
		return json.NewEncoder(w).Encode(struct {
			Configuration string `json:"configuration"`
			serveSettings
		}{"ok", s})
	}
	_, err := fmt.Fprintf(w, "configuration ok: listen %s (%d readers), admin %q, %d ticks/s, max games %d, models %s, default %s\n",
		s.Listen, s.Readers, s.Admin, s.TickRate, s.MaxGames, strings.Join(s.NetworkModels, ", "), s.DefaultNetworkModel)
	return err
}

// printStartup prints the startup line with --json (the log on standard
// error says the same for people).
func (f *serveFlags) printStartup(w io.Writer, up serveStartup) error {
	if !f.json {
		return nil
	}
	return json.NewEncoder(w).Encode(up)
}
