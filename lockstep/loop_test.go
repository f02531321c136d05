package lockstep_test

import (
	"strings"
	"testing"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
	"github.com/tickwire/tickwire/sim/scenario"
)

// teamInput adapts a bot team reading a simulation to OrderSource.
type teamInput struct {
	team bot.Team
	sim  *sim.Sim
	buf  []protocol.TimestampedOrder
}

func (t *teamInput) Orders(uint64) []protocol.TimestampedOrder {
	t.buf = t.team.Orders(t.sim, t.buf[:0])
	return t.buf
}

func newGame(t testing.TB, seed uint64) (*sim.Sim, bot.Team) {
	t.Helper()
	p := scenario.Params{Players: 3, Seed: seed}
	m, c, err := scenario.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(m, c, seed)
	if err != nil {
		t.Fatal(err)
	}
	return s, bot.NewTeam(p.Players, seed)
}

// TestLocalNetworkMatchesDirectPlay: a game driven through GameLoop and
// LocalNetwork reaches the same state as the same bots applying ticks to
// the simulation directly.
func TestLocalNetworkMatchesDirectPlay(t *testing.T) {
	const ticks = 300
	direct, team := newGame(t, 5)
	var orders []protocol.TimestampedOrder
	for tick := range uint64(ticks) {
		orders = team.Orders(direct, orders[:0])
		if err := direct.ApplyTick(protocol.TickOrders{Tick: tick, Orders: orders}); err != nil {
			t.Fatal(err)
		}
	}

	looped, team2 := newGame(t, 5)
	net := &lockstep.LocalNetwork{}
	var hashes int
	loop := lockstep.GameLoop{Sim: looped, Net: net, Input: &teamInput{team: team2, sim: looped},
		OnTick: func(tick, hash uint64) { hashes++ }}
	for loop.Applied() < ticks {
		n, err := loop.Step()
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("LocalNetwork confirmed %d ticks in one step", n)
		}
	}
	if looped.StateHash() != direct.StateHash() {
		t.Fatalf("hash through LocalNetwork %x != direct %x", looped.StateHash(), direct.StateHash())
	}
	if hashes != ticks || net.Diagnostics().Tick != ticks-1 {
		t.Fatalf("reported %d hashes, diagnostics tick %d", hashes, net.Diagnostics().Tick)
	}
	net.End()
	if _, ok := net.PollTick(); ok || net.Status() != lockstep.StatusEnded {
		t.Fatal("an ended LocalNetwork still hands out ticks")
	}
}

// gapNetwork confirms ticks out of sequence.
type gapNetwork struct{ lockstep.LocalNetwork }

func (g *gapNetwork) PollTick() (protocol.TickOrders, bool) {
	t, ok := g.LocalNetwork.PollTick()
	t.Tick *= 2 // 0, 2, 4, …
	return t, ok
}

func TestGameLoopRejectsTickGap(t *testing.T) {
	s, _ := newGame(t, 1)
	loop := lockstep.GameLoop{Sim: s, Net: &gapNetwork{}}
	n, err := loop.Step()
	if err == nil || n != 1 || !strings.Contains(err.Error(), "tick 2 confirmed, expected 1") {
		t.Fatalf("applied %d ticks, error %v; want tick 0 applied and tick 2 refused", n, err)
	}
}
