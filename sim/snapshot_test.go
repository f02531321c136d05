package sim

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tickwire/tickwire/protocol"
)

func TestRestoreRejectsGarbage(t *testing.T) {
	s := newTestSim(t)
	runFight(t, s, 40)
	good := s.Snapshot()
	hash := s.StateHash()
	corrupt := func(off int, v byte) []byte {
		b := bytes.Clone(good)
		b[off] = v
		return b
	}
	recordAt := func(i int) int { return snapshotHeader + worldRecordSize(2) + 4 + i*entityRecordSize }
	cases := map[string][]byte{
		"empty":         nil,
		"magic":         corrupt(0, 'X'),
		"version":       corrupt(4, 9),
		"truncated":     good[:len(good)-1],
		"extra byte":    append(bytes.Clone(good), 0),
		"players":       corrupt(9, 0),
		"entity type":   corrupt(recordAt(0)+4, 200),
		"owner":         corrupt(recordAt(0)+6, 7),
		"position":      corrupt(recordAt(0)+11, 0x7f),
		"health":        corrupt(recordAt(0)+21, 0xff),
		"flags":         corrupt(recordAt(0)+33, 0x80),
		"veterancy":     corrupt(recordAt(0)+36, 9),
		"order mode":    corrupt(recordAt(0)+37, 9),
		"id order":      corrupt(recordAt(1), 0),
		"entity count":  corrupt(recordAt(0)-4, 0xff),
		"credits":       corrupt(snapshotHeader+23, 0x80),
		"map hash":      corrupt(11, good[11]^1),
		"ground height": corrupt(recordAt(0)+16, good[recordAt(0)+16]^1),
	}
	for name, b := range cases {
		err := s.Restore(b)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if !errors.Is(err, ErrInvalidSnapshot) && !errors.Is(err, ErrSnapshotMismatch) {
			t.Errorf("%s: error %v is neither sentinel", name, err)
		}
		if s.StateHash() != hash {
			t.Fatalf("%s: a failed Restore changed the state", name)
		}
	}
}

func TestDiffReportsEntitiesAndWorld(t *testing.T) {
	a := newTestSim(t)
	before := a.Snapshot()
	runFight(t, a, 1)
	diffs, err := Diff(before, a.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	has := func(id protocol.EntityID, field string) bool {
		for _, d := range diffs {
			if d.Entity == id && d.Field == field {
				return true
			}
		}
		return false
	}
	if !has(0, "tick") || !has(0, "credits[1]") {
		t.Fatalf("world differences missing: %v", diffs)
	}
	inf := firstOf(a, 1, TypeInfantry)
	if !has(inf, "pos.x") || !has(inf, "order") {
		t.Fatalf("moved infantry %d not reported: %v", inf, diffs)
	}
	if d, err := Diff(before, before); err != nil || len(d) != 0 {
		t.Fatalf("self-diff: %v %v", d, err)
	}
	if _, err := Diff(before, before[:10]); !errors.Is(err, ErrInvalidSnapshot) {
		t.Fatalf("Diff of garbage: %v", err)
	}
}

// FuzzRestore feeds arbitrary bytes to Restore. It must never panic; what
// it accepts must re-encode to the same bytes and must be runnable.
func FuzzRestore(f *testing.F) {
	s := newTestSim(f)
	f.Add(s.Snapshot())
	runFight(f, s, 30)
	f.Add(s.Snapshot())
	runFight(f, s, 200)
	f.Add(s.Snapshot())
	f.Add([]byte(snapshotMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := newTestSim(t)
		if err := s.Restore(b); err != nil {
			return
		}
		if !bytes.Equal(s.Snapshot(), b) {
			t.Fatal("accepted snapshot does not re-encode to itself")
		}
		for range 3 {
			if err := s.ApplyTick(protocol.TickOrders{Tick: s.Tick()}); err != nil {
				t.Fatal(err)
			}
		}
		s.StateHash()
	})
}
