package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/examples/echo/echoclient"
	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/lockstep/lockstepbot"
	"github.com/tickwire/tickwire/predict/predictbot"
	"github.com/tickwire/tickwire/transport/securebench"
)

// TestTablesExplainThemselves: every summary table lists its players
// in seat order (spectators last) whatever order the bots finished in,
// prints no Go map nor raw JSON, and ends on its verdict line.
func TestTablesExplainThemselves(t *testing.T) {
	ids := []int{3, 0, 1, 2}
	var echoR echoclient.Report
	var fogR fogclient.Report
	var predR predictbot.Report
	var lockR lockstepbot.Report
	for _, id := range ids {
		echoR.Players = append(echoR.Players, echoclient.PlayerReport{ID: id})
		fogR.Players = append(fogR.Players, fogclient.PlayerReport{ID: id})
		predR.Players = append(predR.Players, predictbot.Player{ID: id})
		lockR.Players = append(lockR.Players, lockstepbot.PlayerReport{ID: id})
	}
	drill := error(nil)
	for _, tc := range []struct {
		name    string
		table   func(*bytes.Buffer)
		verdict string // the last line's start
	}{
		{"echo", func(b *bytes.Buffer) { echoReport{&echoR}.table(b) }, "all echoed:"},
		{"fogauth", func(b *bytes.Buffer) { fogReport{&fogR}.table(b) }, "consistent"},
		{"predict", func(b *bytes.Buffer) { predictReport{&predR}.table(b) }, "parity:"},
		{"lockstep", func(b *bytes.Buffer) { lockstepReport{Report: &lockR}.table(b) }, "in sync:"},
		{"lockstep drill", func(b *bytes.Buffer) {
			lockstepReport{Report: &lockR, drill: &drill, drillLine: "desync drill: r.json names the injected entity and field: yes"}.table(b)
		}, "desync drill:"},
		{"statesync", func(b *bytes.Buffer) {
			ssReport{Tiers: map[string]uint64{"1": 919, "2": 3}, hostile: 1}.table(b)
		}, "in sync:"},
	} {
		var b bytes.Buffer
		tc.table(&b)
		out := b.String()
		if strings.Contains(out, "map[") || strings.ContainsAny(out, "{}") {
			t.Errorf("%s: a Go map or raw JSON in the table:\n%s", tc.name, out)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, tc.verdict) {
			t.Errorf("%s: last line %q, want the verdict %q", tc.name, last, tc.verdict)
		}
		var seats []string
		row := regexp.MustCompile(`^\s+(\d+)\s`)
		for _, l := range lines[1:] {
			if m := row.FindStringSubmatch(l); m != nil {
				seats = append(seats, m[1])
			}
		}
		if tc.name != "statesync" && strings.Join(seats, " ") != "1 2 3 0" {
			t.Errorf("%s: rows in seat order %v, want 1 2 3 0:\n%s", tc.name, seats, out)
		}
	}
	var b bytes.Buffer
	writeSecurityText(&b, &securebench.Result{HandshakesPerSecond: 900})
	if strings.ContainsAny(b.String(), "{}") || !strings.Contains(b.String(), "900 handshakes/s") {
		t.Errorf("bench transport's security text: %q", b.String())
	}
}

// TestNoSentinelInJSON: a joiner that never got a tick has no
// first_tick_ms, rather than the time from its start to the zero time.
func TestNoSentinelInJSON(t *testing.T) {
	start := time.Now()
	p := pathReport{lockstepReport: lockstepReport{Report: &lockstepbot.Report{}}, RouteMS: 12, FirstTickMS: sinceMS(start, time.Time{})}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "first_tick_ms") || strings.Contains(string(b), "-92233") {
		t.Errorf("no tick came, yet %s", b)
	}
	if ms := sinceMS(start, start.Add(250*time.Millisecond)); ms != 250 {
		t.Errorf("sinceMS %v, want 250", ms)
	}
}
