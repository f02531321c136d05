package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/records"
)

func TestMatchesCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	db, err := records.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	r := records.Record{Room: "r", NetworkModel: "lockstep", Players: []records.Player{{Player: 1}}, StartedAt: time.Now()}
	id, _ := db.Start(ctx, r)
	r.ID, r.Outcome, r.Ticks, r.EndedAt = id, records.OutcomeFinished, 900, time.Now()
	db.End(ctx, r)
	// The server keeps it open while the command reads.
	defer db.Close()

	var out bytes.Buffer
	if code := run(ctx, []string{"matches", "list", "--db", path, "--json"}, &out, io.Discard); code != 0 {
		t.Fatalf("list exit %d", code)
	}
	var ms []records.Record
	if err := json.Unmarshal(out.Bytes(), &ms); err != nil || len(ms) != 1 || ms[0].Outcome != "finished" || len(ms[0].Players) != 1 {
		t.Fatalf("list --json = %s", out.String())
	}
	out.Reset()
	if code := run(ctx, []string{"matches", "show", "1", "--db", path}, &out, io.Discard); code != 0 || !strings.Contains(out.String(), `"ticks": 900`) {
		t.Fatalf("show: %d %s", code, out.String())
	}
	if code := run(ctx, []string{"matches", "show", "2", "--db", path}, io.Discard, io.Discard); code != 1 {
		t.Errorf("show of a missing match: exit %d", code)
	}
	if code := run(ctx, []string{"matches", "list", "--db", filepath.Join(dir, "none.db")}, io.Discard, io.Discard); code != exitUsage {
		t.Errorf("list of a missing database: exit %d, want %d (a bad --db)", code, exitUsage)
	}

	pub, key, _ := ed25519.GenerateKey(nil)
	full, _ := db.Get(ctx, id)
	c, _ := records.Certify(full, key)
	b, _ := json.Marshal(c)
	cert := filepath.Join(dir, "result.json")
	os.WriteFile(cert, b, 0o600)
	out.Reset()
	if code := run(ctx, []string{"matches", "verify", "--key", hex.EncodeToString(pub), cert}, &out, io.Discard); code != 0 || !strings.HasPrefix(out.String(), "valid") {
		t.Fatalf("verify: %d %s", code, out.String())
	}
	c.Record.Ticks = 901
	b, _ = json.Marshal(c)
	os.WriteFile(cert, b, 0o600)
	if code := run(ctx, []string{"matches", "verify", cert}, io.Discard, io.Discard); code != 1 {
		t.Errorf("verify of a tampered result: exit %d", code)
	}
}
