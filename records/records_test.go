package records

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sampleRecord() Record {
	return Record{Room: "ranked-1", NetworkModel: "lockstep", MatchType: "ranked",
		Players:   []Player{{Player: 1, PublicKey: strings.Repeat("ab", 32)}, {Player: 2, Name: "bo"}},
		StartedAt: time.Date(2026, 11, 26, 4, 0, 0, 123000, time.UTC)}
}

func TestStartEndGet(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := sampleRecord()
	id, err := db.Start(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := db.Get(ctx, id)
	if got.Outcome != OutcomeRunning || len(got.Players) != 2 || !got.EndedAt.IsZero() {
		t.Fatalf("running match = %+v", got)
	}
	r.ID, r.EndedAt, r.Ticks, r.Outcome, r.FinalHash = id, r.StartedAt.Add(time.Minute), 1800, OutcomeFinished, "cd25999b085a0de3"
	r.UpdatedAt = r.EndedAt
	r.Desyncs, r.QosAdjustments = 1, 2
	r.Removals = []Removal{{Player: 2, AtTick: 900, Reason: "timeout"}}
	r.ReplayFile, r.ReplayHash = "m.replay", "00ff"
	if err := db.End(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err = db.Get(ctx, id)
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("Get =\n%+v, %v\nwant\n%+v", got, err, r)
	}
	if _, err := db.Get(ctx, id+1); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a missing id = %v", err)
	}
	if err := db.End(ctx, Record{ID: 99}); !errors.Is(err, ErrNotFound) {
		t.Errorf("End of a missing id = %v", err)
	}
	for range 3 {
		db.Start(ctx, sampleRecord())
	}
	ls, _ := db.List(ctx, 2)
	if len(ls) != 2 || ls[0].ID != id+3 {
		t.Errorf("List = %+v", ls)
	}
}

func TestReopenMarksUnfinished(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	db, _ := Open(ctx, path)
	running, _ := db.Start(ctx, sampleRecord())
	done, _ := db.Start(ctx, sampleRecord())
	db.End(ctx, Record{ID: done, Outcome: OutcomeFinished, EndedAt: time.Now()})
	db.Close()
	db, err := Open(ctx, path) // the migrations run once: a second open is a no-op
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if r, _ := db.Get(ctx, running); r.Outcome != OutcomeUnfinished {
		t.Errorf("running match after restart: %q", r.Outcome)
	}
	if r, _ := db.Get(ctx, done); r.Outcome != OutcomeFinished {
		t.Errorf("finished match after restart: %q", r.Outcome)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	db, _ := Open(ctx, path)
	db.db.Exec(`PRAGMA user_version = 99`)
	db.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of a newer schema = %v", err)
	}
}

// TestKill9 runs a process that writes matches as fast as it can, kills it
// with SIGKILL mid-stream, and checks the database opens, passes SQLite's
// integrity check, and holds every match the writer had committed, the one
// it was in marked unfinished.
func TestKill9(t *testing.T) {
	if path := os.Getenv("RECORDS_KILL9_WRITER"); path != "" {
		db, err := Open(context.Background(), path)
		if err != nil {
			os.Exit(3)
		}
		for i := 0; ; i++ {
			id, err := db.Start(context.Background(), sampleRecord())
			if err != nil {
				os.Exit(4)
			}
			fmt.Println(id) // committed
			if i%2 == 0 {
				db.End(context.Background(), Record{ID: id, Outcome: OutcomeFinished, EndedAt: time.Now(), Ticks: 10})
			}
		}
	}
	path := filepath.Join(t.TempDir(), "m.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9$")
	cmd.Env = append(os.Environ(), "RECORDS_KILL9_WRITER="+path)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	seen := ""
	for strings.Count(seen, "\n") < 50 {
		n, err := out.Read(buf)
		if err != nil {
			t.Fatalf("writer ended early: %v (%q)", err, seen)
		}
		seen += string(buf[:n])
	}
	cmd.Process.Kill()
	cmd.Wait()
	lines := strings.Fields(seen)
	var last int64
	fmt.Sscan(lines[len(lines)-1], &last)
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	db.db.QueryRow(`PRAGMA integrity_check`).Scan(&check)
	if check != "ok" {
		t.Fatalf("integrity_check: %s", check)
	}
	for id := int64(1); id <= last; id++ {
		r, err := db.Get(ctx, id)
		if err != nil {
			t.Fatalf("committed match %d lost: %v", id, err)
		}
		if r.Outcome == OutcomeRunning {
			t.Fatalf("match %d still running after restart", id)
		}
	}
}

func TestCertify(t *testing.T) {
	pub, key, _ := ed25519.GenerateKey(nil)
	r := sampleRecord()
	r.ID, r.Outcome, r.Ticks, r.EndedAt = 7, OutcomeFinished, 900, r.StartedAt.Add(time.Minute)
	c, err := Certify(r, key)
	if err != nil {
		t.Fatal(err)
	}
	// Through JSON, as a player receives and stores it.
	b, _ := json.Marshal(c)
	var back Certificate
	json.Unmarshal(b, &back)
	if err := Verify(back, pub); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	other, _, _ := ed25519.GenerateKey(nil)
	if err := Verify(back, other); !errors.Is(err, ErrBadSignature) {
		t.Errorf("wrong server key: %v", err)
	}
	tampers := map[string]func(*Certificate){
		"outcome": func(c *Certificate) { c.Record.Outcome = OutcomeAbandoned },
		"ticks":   func(c *Certificate) { c.Record.Ticks++ },
		"player key": func(c *Certificate) {
			c.Record.Players = append([]Player(nil), c.Record.Players...)
			c.Record.Players[0].PublicKey = strings.Repeat("cd", 32)
		},
		"ended": func(c *Certificate) { c.Record.EndedAt = c.Record.EndedAt.Add(time.Microsecond) },
		"signature": func(c *Certificate) {
			flip := map[byte]string{'0': "1"}[c.Signature[0]]
			if flip == "" {
				flip = "0"
			}
			c.Signature = flip + c.Signature[1:]
		},
		"key": func(c *Certificate) { c.ServerKey = "zz" },
	}
	for name, tamper := range tampers {
		c2 := back
		tamper(&c2)
		if err := Verify(c2, nil); !errors.Is(err, ErrBadSignature) {
			t.Errorf("tampered %s verifies: %v", name, err)
		}
	}
}

// TestOneWriter: a second Open of a database in use (here in the same
// process; another process is refused alike) fails with ErrInUse naming
// the writer, and reads or writes nothing: the first writer's running
// match stays running. Once the first closes, the database opens again.
func TestOneWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	first, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := first.Start(ctx, sampleRecord())
	second, err := Open(ctx, path)
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d on ", os.Getpid())) {
		t.Fatalf("second Open = %v, %v; want ErrInUse naming pid %d", second, err, os.Getpid())
	}
	if r, _ := first.Get(ctx, id); r.Outcome != OutcomeRunning {
		t.Fatalf("the first writer's running match became %q", r.Outcome)
	}
	if n, err := first.Progress(ctx, time.Now(), Played{id, 5}); n != 1 || err != nil {
		t.Fatalf("the first writer cannot write any more: %v", err)
	}
	first.Close()
	again, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after the writer closed: %v", err)
	}
	defer again.Close()
	if r, _ := again.Get(ctx, id); r.Outcome != OutcomeUnfinished || r.Ticks != 5 {
		t.Fatalf("the match after its writer left: %+v", r)
	}
}

// TestRacingFirstOpens: servers started together on a new file: one opens
// it, the others are refused with ErrInUse, none fails otherwise; and
// with the writer lock out of the way (as on a filesystem without locks)
// racing migrations still apply each step once.
func TestRacingFirstOpens(t *testing.T) {
	ctx := context.Background()
	for round := range 20 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("m%d.db", round))
		const n = 6
		errs := make(chan error, n)
		dbs := make(chan *DB, n)
		for range n {
			go func() {
				db, err := Open(ctx, path)
				if err == nil {
					dbs <- db
				}
				errs <- err
			}()
		}
		opened := 0
		for range n {
			err := <-errs
			switch {
			case err == nil:
				opened++
			case !errors.Is(err, ErrInUse):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if opened < 1 {
			t.Fatalf("round %d: no Open succeeded", round)
		}
		for range opened {
			(<-dbs).Close()
		}
	}
	for round := range 20 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("raw%d.db", round))
		const n = 6
		errs := make(chan error, n)
		for range n {
			go func() {
				d := &DB{db: openWriter(path)}
				defer d.db.Close()
				errs <- d.migrate(ctx)
			}()
		}
		for range n {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: racing migrations: %v", round, err)
			}
		}
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		var v int
		db.db.QueryRow(`PRAGMA user_version`).Scan(&v)
		db.Close()
		if v != len(migrations) {
			t.Fatalf("round %d: user_version %d", round, v)
		}
	}
}

// TestProgressSurvivesACrash: a running match's progress (ticks, time of
// the last write) is what its row says after the server died.
func TestProgressSurvivesACrash(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	db, _ := Open(ctx, path)
	r := sampleRecord()
	id, _ := db.Start(ctx, r)
	at := r.StartedAt.Add(76 * time.Second / 30).Truncate(time.Microsecond)
	done, _ := db.Start(ctx, r)
	db.End(ctx, Record{ID: done, Outcome: OutcomeFinished, EndedAt: at, Ticks: 9})
	// One write for both: the ended match is left alone.
	if n, err := db.Progress(ctx, at, Played{id, 76}, Played{done, 10}); n != 1 || err != nil {
		t.Fatalf("Progress = %d, %v; want the running match's row alone", n, err)
	}
	db.Close() // as a crash: the match never ended
	db, _ = Open(ctx, path)
	defer db.Close()
	got, _ := db.Get(ctx, id)
	if got.Outcome != OutcomeUnfinished || got.Ticks != 76 || !got.UpdatedAt.Equal(at) || !got.EndedAt.IsZero() {
		t.Fatalf("unfinished match = %+v", got)
	}
	if got, _ := db.Get(ctx, done); got.Ticks != 9 || !got.UpdatedAt.Equal(at) {
		t.Fatalf("finished match = %+v", got)
	}
}

// TestListHasPlayers: List gives each match's players (an empty list, not
// null, for none).
func TestListHasPlayers(t *testing.T) {
	ctx := context.Background()
	db, _ := Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	defer db.Close()
	db.Start(ctx, sampleRecord())
	db.Start(ctx, Record{Room: "empty", NetworkModel: "lockstep", StartedAt: time.Now()})
	ls, err := db.List(ctx, 10)
	if err != nil || len(ls) != 2 {
		t.Fatal(ls, err)
	}
	if all, _ := db.List(ctx, 0); len(all) != 2 {
		t.Fatalf("List with no limit: %d matches", len(all))
	}
	b, _ := json.Marshal(ls)
	if len(ls[1].Players) != 2 || ls[1].Players[1].Name != "bo" || strings.Contains(string(b), `"players":null`) {
		t.Fatalf("List = %s", b)
	}
}

// TestMigrateFromV1: a database of the first schema gets updated_at (its
// rows' last known write) and opens for reading.
func TestMigrateFromV1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	raw := openWriter(path)
	for _, q := range []string{migrations[0], `PRAGMA user_version = 1`,
		`INSERT INTO matches (room, network_model, started_at, ended_at, ticks, outcome) VALUES ('a', 'lockstep', 10, 20, 3, 'finished')`,
		`INSERT INTO matches (room, network_model, started_at, outcome) VALUES ('b', 'lockstep', 30, 'running')`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	if _, err := OpenReadOnly(ctx, path); err == nil || !strings.Contains(err.Error(), "schema version 1") {
		t.Fatalf("OpenReadOnly of an old schema = %v", err)
	}
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	a, _ := ro.Get(ctx, 1)
	b, _ := ro.Get(ctx, 2)
	if a.UpdatedAt.UnixMicro() != 20 || b.UpdatedAt.UnixMicro() != 30 || b.Outcome != OutcomeUnfinished {
		t.Fatalf("after the migration: %+v, %+v", a, b)
	}
}
