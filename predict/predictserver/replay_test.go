package predictserver

import (
	"testing"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/replay"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/sim/action"
)

// TestRecordedInputsReplay: a recorded prediction game's file holds each
// tick's inputs and the server's hashes; stepping a fresh game with the
// decoded inputs reaches every recorded hash and the footer's.
func TestRecordedInputsReplay(t *testing.T) {
	const ticks, players = 90, 2
	done := make(chan replay.Finished, 1)
	cfg := replay.Config{Dir: t.TempDir(), OnFinished: func(f replay.Finished) { done <- f }}.WithKey()
	newGame := func() predict.Game {
		g := actiongame.New(action.Config{}, 1)
		for p := range players {
			if err := g.Join(predict.PlayerID(p + 1)); err != nil {
				t.Fatal(err)
			}
		}
		return g
	}
	game, rec := record(&cfg, room.Params{Name: "p", Seats: make([]room.Seat, players), TickRate: 60}, newGame())
	for tick := range uint64(ticks) {
		var inputs []predict.PlayerInput
		for p := range players {
			if (tick+uint64(p))%3 == 0 {
				in := &predict.Input{Sequence: uint32(tick + 1), ClientTick: tick, IntendedTick: tick, MoveX: int8(p*2 - 1), MoveY: 1, Yaw: uint16(tick * 100), Jump: tick%7 == 0}
				inputs = append(inputs, predict.PlayerInput{Player: predict.PlayerID(p + 1), Input: in})
			}
		}
		game.Step(inputs, nil)
	}
	finishReplay(rec, game, nil)
	fin := <-done
	r, err := replay.ReadFile(fin.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Verify(nil); err != nil {
		t.Fatal(err)
	}
	if r.Header.Model != room.Prediction || len(r.Inputs) == 0 || len(r.Syncs) != ticks/hashEvery || r.Footer == nil || r.Footer.Ticks != ticks {
		t.Fatalf("header %+v, %d inputs, %d hashes, footer %+v", r.Header, len(r.Inputs), len(r.Syncs), r.Footer)
	}
	want := map[uint64]uint64{r.Footer.FinalTick: r.Footer.FinalHash}
	for _, s := range r.Syncs {
		want[s.Tick] = s.Hash
	}
	again, i := newGame(), 0
	for tick := range uint64(ticks) {
		var inputs []predict.PlayerInput
		for ; i < len(r.Inputs) && r.Inputs[i].Tick == tick; i++ {
			var m predict.InputMessage
			if err := m.Parse(r.Inputs[i].Data); err != nil || len(m.Inputs) != 1 {
				t.Fatalf("input %d: %v", i, err)
			}
			inputs = append(inputs, predict.PlayerInput{Player: m.Player, Input: &m.Inputs[0]})
		}
		again.Step(inputs, nil)
		if h, ok := want[tick]; ok && again.StateHash() != h {
			t.Fatalf("tick %d: re-simulated hash %x, recorded %x", tick, again.StateHash(), h)
		}
	}
	if i != len(r.Inputs) {
		t.Fatalf("%d of %d inputs replayed", i, len(r.Inputs))
	}
}
