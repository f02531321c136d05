package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandLineGrammar: one grammar for every command. A flag with no
// value is an error (last, or followed by another flag); a bad value or
// address names its flag and exits 2, a port in use asks whether
// another serve runs; a duration's mistake names the units; an unknown
// configuration key gets "did you mean"; `help help` works; help shows
// one default per flag; `matches list` without a database names --db.
func TestCommandLineGrammar(t *testing.T) {
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "server.toml")
	if err := os.WriteFile(cfg, []byte("[relay]\nmax_gamez = 4\n[relay.fogauth]\nmax_spectatorz = 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inUse := "is another tickwire serve running?"
	for _, tc := range []struct {
		args []string
		want string // in standard error
	}{
		{[]string{"demo", "--ticks", "30", "--mode"}, "--mode needs a value"},
		{[]string{"demo", "--mode", "--ticks", "30"}, "--mode needs a value"},
		{[]string{"demo", "--ticks"}, "--ticks needs a value"},
		{[]string{"demo", "--seed", "--json"}, "--seed needs a value before --json"},
		{[]string{"bot", "--mode", "fogauth", "--server", "--room", "x"}, "--server needs a value before --room"},
		{[]string{"serve", "--listen", "127.0.0.1:99999", "--admin", ""}, `--listen (relay.listen) "127.0.0.1:99999": port "99999" is not 0..65535`},
		{[]string{"serve", "--listen", "nohostport", "--admin", ""}, `--listen (relay.listen) "nohostport": address nohostport: missing port in address`},
		{[]string{"serve", "--listen", udp.LocalAddr().String(), "--admin", ""}, "--listen " + udp.LocalAddr().String() + ": the address is in use; " + inUse},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--admin", tcp.Addr().String()}, "--admin " + tcp.Addr().String() + ": the address is in use; " + inUse},
		{[]string{"demo", "--loss", "2"}, "--loss 2: a probability, 0..1"},
		{[]string{"demo", "--latency", "40"}, "--latency 40: want a duration with its unit, e.g. 40ms"},
		{[]string{"serve", "--config", cfg, "--check-config"}, "relay.max_gamez (did you mean relay.max_games?), relay.fogauth.max_spectatorz (did you mean relay.fogauth.max_spectators?)"},
		{[]string{"matches", "list", "--db", filepath.Join(dir, "none.db")}, "no match database at " + filepath.Join(dir, "none.db") + ": pass --db FILE"},
	} {
		code, _, errOut := runCmd(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, %q; want %d and %q", tc.args, code, errOut, exitUsage, tc.want)
		}
	}
	if code, out, errOut := runCmd(t, "help", "help"); code != exitOK || !strings.Contains(out, "usage: tickwire <command>") {
		t.Errorf("help help: exit %d, %q %q", code, out, errOut)
	}
	_, out, _ := runCmd(t, "help", "demo")
	for _, line := range strings.Split(strings.ReplaceAll(out, "\n      ", " "), "\n") {
		if strings.Count(line, "(default") > 1 {
			t.Errorf("help demo: two defaults in %q", line)
		}
	}
}
