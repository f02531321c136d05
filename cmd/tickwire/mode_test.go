package main

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestUnknownModeNamesTheModes(t *testing.T) {
	for _, sub := range []string{"demo", "bot"} {
		code, _, errOut := runCmd(t, sub, "--mode", "nope")
		if code != 2 || !strings.Contains(errOut, `unknown --mode "nope" (lockstep, fogauth, predict, statesync)`) {
			t.Errorf("%s --mode nope: exit %d, %s", sub, code, errOut)
		}
	}
	if _, _, err := pickMode([]string{"--mode=nope"}); !errors.Is(err, errUsage) {
		t.Errorf("--mode=nope: %v", err)
	}
	if m, rest, err := pickMode([]string{"--players", "2"}); err != nil || m.name() != "lockstep" || len(rest) != 2 {
		t.Errorf("no --mode: %v %v %v", m, rest, err)
	}
}

// TestModesAreDistinct: every mode has its own --mode word, network
// model and settings table, and serve hosts each mode's model.
func TestModesAreDistinct(t *testing.T) {
	names, models, tables := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, m := range modes() {
		key, table := m.settings()
		if names[m.name()] || models[m.modelName()] || (table != nil && tables[key]) {
			t.Errorf("mode %s (model %s, table %q) repeats another's", m.name(), m.modelName(), key)
		}
		names[m.name()], models[m.modelName()], tables[key] = true, true, table != nil
	}
	f, err := parseServeFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.serverConfig(nil).Check(); err != nil {
		t.Fatal(err)
	}
	hosted := map[string]bool{"lockstep": true} // the server's own
	for _, m := range f.serverConfig(nil).Models {
		hosted[m.Name] = true
	}
	for name := range models {
		if !hosted[name] {
			t.Errorf("serve does not host %s", name)
		}
	}
}
