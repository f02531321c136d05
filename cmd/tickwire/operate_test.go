package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tickwire/tickwire/records"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/tracker"
)

// TestServeDrainsAndRecords runs "tickwire serve" with a match database
// and a drain timeout, plays a lockstep match into it, and sends the
// shutdown signal (the context) while the match runs: /readyz turns 503,
// a join for a new room is refused naming the drain, the running match
// plays to its end, the server then exits 0, and the match's row says
// finished with both players' keys.
func TestServeDrainsAndRecords(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tickwire.db")
	cfg := writeConfig(t, "[relay]\ndb = \""+filepath.ToSlash(db)+"\"\ndrain_timeout = \"60s\"\n")
	udp, adm := freeAddr(t, "udp"), freeAddr(t, "tcp")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	var errOut bytes.Buffer
	go func() {
		done <- run(ctx, []string{"serve", "--listen", udp, "--admin", adm, "--config", cfg, "--exempt-loopback"}, io.Discard, &errOut)
	}()
	waitReady(t, "http://"+adm+"/readyz")

	match := make(chan int, 1)
	go func() {
		code, _, _ := runCmd(t, "bot", "--server", udp, "--room", "long", "--players", "2", "--ticks", "240", "--json")
		match <- code
	}()
	// Wait until the match plays, then signal shutdown.
	waitMatchPlays(t, adm)
	cancel()
	waitFor(t, "/readyz answers 503 while draining", func() bool {
		code, _ := httpGet(t, "http://"+adm+"/readyz")
		return code == 503
	})
	if _, metrics := httpGet(t, "http://"+adm+"/metrics"); !strings.Contains(metrics, "\ntickwire_relay_draining 1\n") {
		t.Errorf("/metrics while draining has no tickwire_relay_draining 1")
	}
	code, refusedOut, refusedErr := runCmd(t, "bot", "--server", udp, "--room", "late", "--players", "1", "--ticks", "10", "--json")
	if code == 0 || !strings.Contains(refusedOut+refusedErr, "draining") {
		t.Errorf("a new room during the drain: exit %d: %s", code, refusedOut)
	}
	if code := <-match; code != 0 {
		t.Errorf("the running match did not finish during the drain: exit %d", code)
	}
	if code := <-done; code != 0 {
		t.Fatalf("serve exit %d: %s", code, errOut.String())
	}
	d, err := records.OpenReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ms, err := d.List(context.Background(), 10)
	if err != nil || len(ms) != 1 {
		t.Fatalf("matches %+v, %v", ms, err)
	}
	m, _ := d.Get(context.Background(), ms[0].ID)
	if m.Room != "long" || m.NetworkModel != "lockstep" || m.Outcome != records.OutcomeFinished || m.Ticks < 240 ||
		len(m.Players) != 2 || len(m.Players[0].PublicKey) != 64 || m.EndedAt.IsZero() || len(m.FinalHash) != 16 || !m.UpdatedAt.Equal(m.EndedAt) {
		t.Fatalf("the match's row: %+v", m)
	}
}

// TestListingsOfRooms: the rooms a server publishes at its trackers, as
// listings a browser can filter (a room waiting for players is waiting,
// a playing one in progress).
func TestListingsOfRooms(t *testing.T) {
	op := &operator{flags: operatorFlags{region: "eu-test"}}
	st := server.Stats{Rooms: []server.RoomStats{
		{Name: "a", NetworkModel: "lockstep", Size: 4, Players: 1, Phase: "waiting"},
		{Name: "b", NetworkModel: "state_sync", Size: 2, Players: 2, Phase: "playing", Tick: 9},
	}}
	ls := op.listingsOf(st, "203.0.113.7:7777", strings.Repeat("ab", 32))
	d := tracker.NewDirectory(tracker.Config{})
	for _, l := range ls {
		if _, err := d.Publish(context.Background(), l); err != nil {
			t.Fatalf("listing %+v refused: %v", l, err)
		}
	}
	got, _ := d.Browse(context.Background(), tracker.Filter{Status: tracker.StatusWaiting, FreeSeats: 1, Region: "eu-test"})
	if len(got) != 1 || got[0].Room != "a" || got[0].NetworkModel != "lockstep" {
		t.Fatalf("waiting rooms: %+v", got)
	}
	b, _ := json.Marshal(ls[1])
	if !strings.Contains(string(b), `"status":"in_progress"`) {
		t.Fatalf("playing room listed as %s", b)
	}
}

// TestHelperServe is not a test: TestKill9KeepsMatchRecords runs the test
// binary as "tickwire serve" through it.
func TestHelperServe(t *testing.T) {
	args := os.Getenv("TICKWIRE_HELPER_SERVE")
	if args == "" {
		t.Skip("a helper process of TestKill9KeepsMatchRecords")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, strings.Split(args, "\x1f"), io.Discard, os.Stderr))
}

// TestKill9KeepsMatchRecords starts the server as a process, kills it
// with SIGKILL while a match plays (once its row shows progress), starts
// it again on the same database and finds the match's row intact, marked
// unfinished, with the ticks played and the time of its last write.
func TestKill9KeepsMatchRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	db := filepath.Join(t.TempDir(), "tickwire.db")
	udp, adm := freeAddr(t, "udp"), freeAddr(t, "tcp")
	args := strings.Join([]string{"serve", "--listen", udp, "--admin", adm, "--db", db, "--exempt-loopback"}, "\x1f")
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServe$")
		cmd.Env = append(os.Environ(), "TICKWIRE_HELPER_SERVE="+args)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitReady(t, "http://"+adm+"/readyz")
		return cmd
	}
	srv := start()
	go runCmd(t, "bot", "--server", udp, "--room", "doomed", "--players", "2", "--ticks", "3000")
	waitMatchPlays(t, adm)
	waitFor(t, "the running match's row gets its progress", func() bool {
		d, err := records.OpenReadOnly(context.Background(), db)
		if err != nil {
			return false
		}
		defer d.Close()
		ms, _ := d.List(context.Background(), 1)
		return len(ms) == 1 && ms[0].Ticks > 0
	})
	srv.Process.Kill()
	srv.Wait()
	srv = start() // opens the database again: the running match becomes unfinished
	srv.Process.Signal(syscall.SIGTERM)
	if err := srv.Wait(); err != nil {
		t.Fatalf("restarted server: %v", err)
	}
	d, err := records.OpenReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ms, err := d.List(context.Background(), 10)
	if err != nil || len(ms) != 1 || ms[0].Room != "doomed" || ms[0].Outcome != records.OutcomeUnfinished ||
		ms[0].Ticks == 0 || !ms[0].UpdatedAt.After(ms[0].StartedAt) || len(ms[0].Players) != 2 {
		t.Fatalf("after kill -9 and a restart: %+v, %v", ms, err)
	}
}

// waitMatchPlays waits until the server at admin address adm plays one
// match.
func waitMatchPlays(t *testing.T, adm string) {
	t.Helper()
	waitFor(t, "a match plays", func() bool {
		_, body := httpGet(t, "http://"+adm+"/metrics")
		return strings.Contains(body, "tickwire_relay_active_games 1")
	})
}

// TestSecondServerOnADatabaseRefused: a server started on a database
// another server writes exits 2 naming that server's process, and the
// first server's running match is left alone.
func TestSecondServerOnADatabaseRefused(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tickwire.db")
	udp, adm := freeAddr(t, "udp"), freeAddr(t, "tcp")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--listen", udp, "--admin", adm, "--db", db, "--exempt-loopback"}, io.Discard, io.Discard)
	}()
	waitReady(t, "http://"+adm+"/readyz")
	code, _, errOut := runCmd(t, "serve", "--listen", freeAddr(t, "udp"), "--admin", "", "--db", db)
	if code != 2 || !strings.Contains(errOut, "in use") || !strings.Contains(errOut, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second server: exit %d: %s", code, errOut)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("first server exit %d", code)
	}
}

// TestRecordFailureFailsReadiness: while match records cannot be written
// /readyz answers 503 naming the records and
// tickwire_relay_record_write_errors_total counts; a write that works
// again clears it.
func TestRecordFailureFailsReadiness(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tickwire.db")
	var cfg server.Config
	op, err := newOperator(context.Background(), operatorFlags{db: path}, &cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	adm := admin.New(admin.SourceFunc(func() admin.Stats { return admin.Stats{Extra: op.metrics()} }))
	adm.SetReady(true)
	op.addChecks(adm)
	h := adm.Handler()
	probe := func(path string) (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w.Code, w.Body.String()
	}
	start := server.MatchEvent{Seq: 1, Room: "r", NetworkModel: "lockstep", Started: time.Now()}
	cfg.OnMatch(start)
	if code, _ := probe("/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz with records written: %d", code)
	}
	op.db.Close() // as a full disk: every write fails
	start.Seq = 2
	cfg.OnMatch(start)
	if code, body := probe("/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "records") {
		t.Fatalf("/readyz with a record lost: %d %q", code, body)
	}
	if _, m := probe("/metrics"); !strings.Contains(m, "tickwire_relay_record_write_errors_total 1") {
		t.Fatalf("/metrics: %s", m)
	}
	if op.db, err = records.Open(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	defer op.db.Close()
	start.Seq = 3
	cfg.OnMatch(start)
	if code, _ := probe("/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz once records are written again: %d", code)
	}
}

// TestCheckConfigChecksPlaces: --check-config refuses (exit 2, naming the
// key) what the start would fail on: a port out of range, an address
// without a port, a database in a missing directory.
func TestCheckConfigChecksPlaces(t *testing.T) {
	missing := filepath.ToSlash(filepath.Join(t.TempDir(), "none", "tickwire.db"))
	for _, c := range []struct{ file, key string }{
		{`listen = "127.0.0.1:99999"`, "relay.listen"},
		{`listen = "localhost"`, "relay.listen"},
		{`admin = "localhost"`, "relay.admin"},
		{`db = "` + missing + `"`, "relay.db"},
	} {
		cfg := writeConfig(t, "[relay]\n"+c.file+"\n")
		code, _, errOut := runCmd(t, "serve", "--config", cfg, "--check-config")
		if code != 2 || !strings.Contains(errOut, c.key) {
			t.Errorf("%s: exit %d: %s", c.file, code, errOut)
		}
	}
	if code, _, errOut := runCmd(t, "serve", "--listen", "127.0.0.1:0", "--admin", "", "--check-config"); code != 0 {
		t.Errorf("a good configuration: exit %d: %s", code, errOut)
	}
}
