package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/lockstep/lockstepbot"
)

func TestBotCommonParse(t *testing.T) {
	spec := botSpec{name: "bot --mode x"}
	var f botCommon
	if err := f.parse(f.flagSet(spec, io.Discard), []string{"--server", "a:1", "--room", "r", "--players", "3", "--ticks", "5"}, 4, nil); err != nil || f.roomSize != 3 {
		t.Fatalf("room size %d, %v", f.roomSize, err)
	}
	var g botCommon
	err := g.parse(g.flagSet(spec, io.Discard), []string{"--server", "a:1", "--room", "r", "--players", "3", "--ticks", "5", "--room-size", "5"}, 4, nil)
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "between --players and 4") {
		t.Fatalf("--room-size 5 of at most 4: %v", err)
	}
}

// TestLockstepReportJSON: the lockstep summary's JSON is exactly the
// lockstepbot.Report's.
func TestLockstepReportJSON(t *testing.T) {
	r := lockstepbot.Report{Players: []lockstepbot.PlayerReport{{ID: 1, FinalHash: "00ff"}}, AllInSync: true, NetworkModel: "lockstep"}
	want, _ := json.Marshal(&r)
	var out bytes.Buffer
	if err := printReport(&out, lockstepReport{Report: &r}, true, nil); err != nil {
		t.Fatal(err)
	}
	if got := bytes.TrimSpace(out.Bytes()); !bytes.Equal(got, want) {
		t.Fatalf("JSON %s, want %s", got, want)
	}
	r.AllInSync = false
	if err := printReport(io.Discard, lockstepReport{Report: &r}, false, nil); !errors.Is(err, errNotInSync) {
		t.Fatalf("verdict %v", err)
	}
}
