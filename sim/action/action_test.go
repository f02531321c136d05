package action_test

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/sim/action"
)

var update = flag.Bool("update", false, "rewrite testdata/golden_hashes.txt")

// match is a world with bots for players 1..n.
type match struct {
	w      *action.World
	bots   []*action.Bot
	inputs []action.PlayerInput
	events []action.Event
}

func newMatch(t testing.TB, cfg action.Config, players int, seed uint64) *match {
	t.Helper()
	m := &match{w: action.New(cfg, seed)}
	for p := 1; p <= players; p++ {
		if _, err := m.w.Join(action.PlayerID(p)); err != nil {
			t.Fatal(err)
		}
		m.bots = append(m.bots, action.NewBot(seed*31+uint64(p)))
	}
	return m
}

func (m *match) step() []action.Event {
	m.inputs = m.inputs[:0]
	for i, b := range m.bots {
		p := action.PlayerID(i + 1)
		m.inputs = append(m.inputs, action.PlayerInput{Player: p, Input: b.Input(m.w, p)})
	}
	m.events = m.w.Step(m.inputs, m.events[:0])
	return m.events
}

var goldenTicks = []uint64{60, 600, 3000}

func goldenLines(t *testing.T) []string {
	m := newMatch(t, action.Config{}, 6, 42)
	var lines []string
	for _, at := range goldenTicks {
		for m.w.Tick() < at {
			m.step()
		}
		lines = append(lines, fmt.Sprintf("tick %d hash %016x rng %016x entities %d", m.w.Tick(), m.w.StateHash(), m.w.RNGState(), len(m.w.Entities())))
	}
	return lines
}

// TestGolden pins the rules: any change to movement, casting, hits or the
// RNG changes these hashes. Regenerate with -update after a deliberate
// rules change.
func TestGolden(t *testing.T) {
	path := filepath.Join("testdata", "golden_hashes.txt")
	got := goldenLines(t)
	if *update {
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	for s := bufio.NewScanner(f); s.Scan(); {
		want = append(want, s.Text())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("golden hashes changed:\ngot\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNormalPlay: bots keep projectiles spawning, hitting, expiring and
// players dying; a test that fails if the game stops being played.
func TestNormalPlay(t *testing.T) {
	m := newMatch(t, action.Config{}, 8, 7)
	count := map[action.EventKind]int{}
	maxLive := 0
	for range 3000 {
		for _, e := range m.step() {
			count[e.Kind]++
		}
		maxLive = max(maxLive, len(m.w.Entities())-8)
	}
	t.Logf("events %v, at most %d live projectiles", count, maxLive)
	if count[action.EventSpawn] < 250 || count[action.EventDespawn] < 150 || count[action.EventHit] < 40 ||
		count[action.EventDeath] < 5 || count[action.EventRespawn] < 5 || count[action.EventCastRejected] < 10 {
		t.Fatalf("the match was not played: %v", count)
	}
}

// TestSnapshotRestoreContinues: a world restored from a snapshot continues
// exactly as the original, and equal states give equal bytes.
func TestSnapshotRestoreContinues(t *testing.T) {
	a := newMatch(t, action.Config{}, 4, 3)
	for range 500 {
		a.step()
	}
	snap := a.w.Snapshot(nil)
	b := newMatch(t, action.Config{}, 0, 999)
	if err := b.w.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.w.Snapshot(nil), snap) || b.w.StateHash() != a.w.StateHash() {
		t.Fatal("restored state differs")
	}
	var ev []action.Event
	for range 500 {
		a.step()
		ev = b.w.Step(a.inputs, ev[:0])
		if !equalEvents(ev, a.events) || b.w.StateHash() != a.w.StateHash() {
			t.Fatalf("diverged at tick %d", a.w.Tick())
		}
	}
}

func equalEvents(a, b []action.Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRestoreRejectsOtherRules: a snapshot of other rules is refused and
// leaves the world unchanged.
func TestRestoreRejectsOtherRules(t *testing.T) {
	a := newMatch(t, action.Config{TickRate: 30}, 2, 1)
	b := newMatch(t, action.Config{}, 2, 1)
	h := b.w.StateHash()
	if err := b.w.Restore(a.w.Snapshot(nil)); err == nil || b.w.StateHash() != h {
		t.Fatalf("restore of other rules: %v", err)
	}
}

// TestCollidersBlock: a player running into a pillar stops at its face.
func TestCollidersBlock(t *testing.T) {
	box := action.Box{MinX: action.Units(10), MinY: 0, MaxX: action.Units(12), MaxY: action.Units(48)}
	w := action.New(action.Config{Colliders: []action.Box{box}}, 1)
	if _, err := w.Join(1); err != nil {
		t.Fatal(err)
	}
	snap := w.Snapshot(nil)
	// Put the player left of the wall, then run right for 5 s.
	e, _ := w.Player(1)
	e.Pos = action.Vec3{X: action.Units(5), Y: action.Units(20)}
	snap = append(snap[:action.HeaderSize], action.AppendEntity(nil, &e)...)
	if err := w.Restore(snap); err != nil {
		t.Fatal(err)
	}
	for range 300 {
		w.Step([]action.PlayerInput{{Player: 1, Input: action.Input{MoveX: 127}}}, nil)
	}
	e, _ = w.Player(1)
	if e.Pos.X > box.MinX || e.Pos.X < box.MinX-action.One || e.Vel.X != 0 {
		t.Fatalf("player at x=%.3f vel %.3f, wall at %.3f", e.Pos.X.Float(), e.Vel.X.Float(), box.MinX.Float())
	}
}

// TestCastCooldownAndProvisionalIDs: a second cast within the cooldown is
// rejected with a reason; provisional spawns take the id -CastSeq and leave
// the id counter alone.
func TestCastCooldownAndProvisionalIDs(t *testing.T) {
	w := action.New(action.Config{NoColliders: true}, 1)
	w.Join(1)
	w.SetProvisionalSpawns(true)
	ev := w.Step([]action.PlayerInput{{Player: 1, Input: action.Input{Cast: true, CastSeq: 7}}}, nil)
	if len(ev) != 1 || ev[0].Kind != action.EventSpawn || ev[0].Entity != -7 || ev[0].ActionSeq != 7 {
		t.Fatalf("first cast: %+v", ev)
	}
	ev = w.Step([]action.PlayerInput{{Player: 1, Input: action.Input{Cast: true, CastSeq: 8}}}, nil)
	if len(ev) != 1 || ev[0].Kind != action.EventCastRejected || ev[0].Value != action.ReasonCooldown || ev[0].ActionSeq != 8 {
		t.Fatalf("cast in cooldown: %+v", ev)
	}
	if es := w.Entities(); len(es) != 2 || es[0].ID != -7 || es[1].ID != 1 {
		t.Fatalf("entities %+v", es)
	}
	if id, _ := w.Join(2); id != 2 {
		t.Fatalf("provisional spawn advanced the id counter: next id %d", id)
	}
}

func FuzzRestore(f *testing.F) {
	m := newMatch(f, action.Config{}, 3, 5)
	for range 200 {
		m.step()
		if m.w.Tick()%50 == 0 {
			f.Add(m.w.Snapshot(nil))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		w := action.New(action.Config{}, 5)
		if err := w.Restore(b); err != nil {
			return
		}
		if !bytes.Equal(w.Snapshot(nil), b) {
			t.Fatal("accepted snapshot does not re-encode to its bytes")
		}
		for range 5 {
			w.Step(nil, nil)
		}
	})
}
