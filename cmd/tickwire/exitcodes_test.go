package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/internal/loopback"
)

// TestExitCodes: the documented exit statuses (docs/exit-codes.md) for
// every command. A mistyped flag is 2 for each command and each of its
// variants (--mode, benchmark, subcommand); a bot of each network model
// that cannot reach its server is 3; a failed check is 1; success and
// help are 0.
func TestExitCodes(t *testing.T) {
	cmds := commands()
	entries := helpEntries()
	for _, name := range sortedNames(cmds) {
		variants := entries[name].variants
		if len(variants) == 0 {
			variants = [][]string{nil}
		}
		for _, v := range variants {
			args := append(append([]string{name}, v...), "--no-such-flag")
			if code, _, errOut := runCmd(t, args...); code != exitUsage || !strings.Contains(errOut, "unknown flag --no-such-flag") {
				t.Errorf("%v: exit %d, %q; want %d", args, code, errOut, exitUsage)
			}
		}
	}
	closed := loopback.ClosedUDP(t)
	for _, m := range modes() {
		code, out, _ := runCmd(t, "bot", "--mode", m.name(), "--server", closed, "--room", "x", "--players", "1", "--ticks", "1", "--json")
		if code != exitConnect || !strings.Contains(out, `"kind":"unreachable"`) {
			t.Errorf("bot --mode %s against a closed port: exit %d, %s; want %d", m.name(), code, out, exitConnect)
		}
	}
	bad := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(bad, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"matches", "verify", bad}, exitFailed},
		{[]string{"version"}, exitOK},
		{[]string{"--version"}, exitOK},
		{[]string{"help", "serve"}, exitOK},
		{[]string{"bench", "codec", "--help"}, exitOK},
		{[]string{"nope"}, exitUsage},
		{[]string{"bot", "--server", closed, "--room", "x", "--players", "0", "--ticks", "1"}, exitUsage},
	} {
		if code, _, errOut := runCmd(t, tc.args...); code != tc.code {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.code, errOut)
		}
	}
	// A failed check with --json: one object on standard output, the
	// error's, of kind "failed".
	code, out, _ := runCmd(t, "matches", "verify", bad, "--json")
	var got struct{ Error failure }
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&got); err != nil || code != exitFailed || got.Error.Kind != "failed" || dec.More() {
		t.Errorf("matches verify --json of a bad file: exit %d, %q", code, out)
	}
}

// TestEveryCommandHasHelp: each command of the table has a help page
// with a paragraph and two or three examples; "help NAME" and "NAME
// --help" print it, with every flag and its default; and each example
// parses (its flags exist: the example with --help appended asks for
// help instead of failing).
func TestEveryCommandHasHelp(t *testing.T) {
	entries := helpEntries()
	for name, c := range commands() {
		e, ok := entries[name]
		if !ok || e.about == "" || len(e.examples) < 2 || len(e.examples) > 3 {
			t.Errorf("%s: help entry %+v, want a paragraph and 2-3 examples", name, e)
			continue
		}
		_, page, _ := runCmd(t, "help", name)
		if _, own, _ := runCmd(t, name, "--help"); own != page || !strings.HasPrefix(page, "tickwire "+name+": "+c.summary) {
			t.Errorf("%s: help NAME and NAME --help differ or lack the summary:\n%s\n---\n%s", name, page, own)
		}
		variants := e.variants
		if len(variants) == 0 {
			variants = [][]string{nil}
		}
		for _, v := range variants {
			fs := flagSetOf(t.Context(), c, v)
			if fs == nil {
				continue
			}
			for _, f := range flagNames(fs) {
				if slices.ContainsFunc(e.hidden, func(p string) bool { return strings.HasPrefix(f, p) }) {
					continue
				}
				if !strings.Contains(page, "  --"+f+" ") && !strings.Contains(page, "  --"+f+"\n") {
					t.Errorf("%s %v: the help page lacks --%s", name, v, f)
				}
			}
		}
		if strings.Count(page, "(default ") == 0 && name != "relay" {
			t.Errorf("%s: no flag defaults on the page", name)
		}
		for _, ex := range e.examples {
			args := strings.Fields(ex)[1:]
			if args[0] == "--version" {
				continue
			}
			if code, _, errOut := runCmd(t, append(args, "--help")...); code != exitOK {
				t.Errorf("%s example %q does not parse: %s", name, ex, errOut)
			}
		}
	}
}

// TestTopLevelListComesFromTheTable: the command list names every
// command of the table and every benchmark.
func TestTopLevelListComesFromTheTable(t *testing.T) {
	_, out, _ := runCmd(t)
	for name := range commands() {
		if !strings.Contains(out, "\n  "+name+" ") {
			t.Errorf("the list lacks %s:\n%s", name, out)
		}
	}
	for _, b := range benchmarkNames() {
		if !strings.Contains(out, b) {
			t.Errorf("the list lacks bench %s", b)
		}
	}
}

// TestVersionJSON pins the fields of "version --json".
func TestVersionJSON(t *testing.T) {
	code, out, errOut := runCmd(t, "version", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"module", "version", "go", "wire", "models"} {
		if _, ok := v[k]; !ok {
			t.Errorf("version --json lacks %q: %s", k, out)
		}
	}
	var parsed buildVersion
	json.Unmarshal([]byte(out), &parsed)
	if parsed.Wire["secure_handshake"] != 1 || parsed.Wire["transport_datagram"] != 2 || len(parsed.Models) != len(modes()) ||
		parsed.Models[0].Formats["order_codec"] != 1 {
		t.Errorf("version --json: %+v", parsed)
	}
}

// flagNames are the names of fs's flags.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}
