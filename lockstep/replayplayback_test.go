package lockstep_test

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/replay"
)

// recordingNet records every tick its network hands out, and a sync
// hash every 30 ticks, as the relay's replay writer does.
type recordingNet struct {
	lockstep.NetworkModel
	enc *replay.Encoder
	t   *testing.T
}

func (n *recordingNet) PollTick() (protocol.TickOrders, bool) {
	t, ok := n.NetworkModel.PollTick()
	if ok {
		if err := n.enc.Frame(t); err != nil {
			n.t.Fatal(err)
		}
	}
	return t, ok
}

func (n *recordingNet) ReportSyncHash(tick, hash uint64) {
	if tick%30 == 0 {
		if err := n.enc.Sync(replay.SyncHash{Tick: tick, Hash: hash}); err != nil {
			n.t.Fatal(err)
		}
	}
}

// recordMatch plays ticks of a three-bot game through LocalNetwork,
// recording it, and returns the file and the final state hash.
func recordMatch(t *testing.T, ticks int) ([]byte, uint64) {
	t.Helper()
	s, team := newGame(t, 9)
	var out bytes.Buffer
	enc, err := replay.NewEncoder(&out, replay.Header{Model: "lockstep", Game: "rts", Seed: 9, TickRate: 30, SignEvery: 64},
		ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	loop := lockstep.GameLoop{Sim: s, Net: &recordingNet{NetworkModel: &lockstep.LocalNetwork{}, enc: enc, t: t},
		Input: &teamInput{team: team, sim: s}}
	for loop.Applied() < uint64(ticks) {
		if _, err := loop.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Finish(replay.Footer{Ticks: uint64(ticks), FinalTick: uint64(ticks - 1), FinalHash: s.StateHash()}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), s.StateHash()
}

// replayInto plays file through a GameLoop on a fresh game.
func replayInto(t *testing.T, file []byte) (*lockstep.ReplayPlayback, uint64) {
	t.Helper()
	r, err := replay.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newGame(t, 9)
	pb := lockstep.NewReplayPlayback(r)
	loop := lockstep.GameLoop{Sim: s, Net: pb}
	for {
		n, err := loop.Step()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return pb, s.StateHash()
		}
	}
}

// TestReplayPlaybackReproducesTheMatch: a recorded match fed through
// ReplayPlayback and GameLoop reaches every recorded hash and the final
// one.
func TestReplayPlaybackReproducesTheMatch(t *testing.T) {
	const ticks = 240
	file, final := recordMatch(t, ticks)
	pb, got := replayInto(t, file)
	if got != final || pb.Status() != lockstep.StatusEnded {
		t.Fatalf("replayed to %x (%v), played %x", got, pb.Status(), final)
	}
	if pb.Checked() != ticks/30+1 || pb.Checked() != pb.Expected() {
		t.Fatalf("checked %d of %d hashes", pb.Checked(), pb.Expected())
	}
	if done, total := pb.Progress(); done != ticks || total != ticks {
		t.Fatalf("progress %d/%d", done, total)
	}
}

// TestReplayPlaybackNamesTheFirstBadHash: a recorded hash that the
// re-simulation does not reach is a desync at that tick.
func TestReplayPlaybackNamesTheFirstBadHash(t *testing.T) {
	file, _ := recordMatch(t, 150)
	r, err := replay.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	r.Syncs[2].Hash ^= 1 // tick 60
	r.Syncs[4].Hash ^= 1 // tick 120
	s, _ := newGame(t, 9)
	pb := lockstep.NewReplayPlayback(r)
	loop := lockstep.GameLoop{Sim: s, Net: pb}
	for {
		if n, err := loop.Step(); err != nil || n == 0 {
			break
		}
	}
	if d := pb.Diagnostics(); pb.Status() != lockstep.StatusDesynced || d.DesyncTick != 60 || d.Desyncs != 2 {
		t.Fatalf("status %v, first desync at %d, %d desyncs", pb.Status(), d.DesyncTick, d.Desyncs)
	}
}

// TestReplayPlaybackStopsAtAGap: playback hands out the ticks before
// frames the writer lost and stops there.
func TestReplayPlaybackStopsAtAGap(t *testing.T) {
	var out bytes.Buffer
	enc, err := replay.NewEncoder(&out, replay.Header{Model: "lockstep", SignEvery: 8}, ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	for tick := range uint64(5) {
		if err := enc.Frame(protocol.TickOrders{Tick: tick}); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Gap(replay.Gap{Tick: 5, Count: 3}); err != nil {
		t.Fatal(err)
	}
	if err := enc.Frame(protocol.TickOrders{Tick: 8}); err != nil {
		t.Fatal(err)
	}
	r, err := replay.Read(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	pb := lockstep.NewReplayPlayback(r)
	n := 0
	for {
		if _, ok := pb.PollTick(); !ok {
			break
		}
		n++
	}
	if n != 5 || !pb.StoppedAtGap() || pb.Status() != lockstep.StatusEnded {
		t.Fatalf("%d ticks handed out, stopped at gap %v, %v", n, pb.StoppedAtGap(), pb.Status())
	}
}
