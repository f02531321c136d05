package predict_test

import (
	"errors"
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/sim/action"
)

const seed = 11

// botIntent returns an IntentFunc playing player p with a random-input
// bot from the client's predicted world.
func botIntent(c *predict.Client, s uint64) predict.IntentFunc {
	bot := action.NewBot(s)
	return func(uint64) predict.Input {
		g := c.Game().(*actiongame.Game)
		return actiongame.Intent(bot.Input(g.W, action.PlayerID(c.Player())))
	}
}

// TestLoopbackParityLoneClient is the seed's harness: random inputs
// through the loopback layer; after every snapshot and replay the
// prediction of the client's own entity at the acknowledged tick equals
// the authoritative state bit for bit, and a lone client without loss is
// never corrected.
func TestLoopbackParityLoneClient(t *testing.T) {
	local := predict.NewLocalServer(predict.ServerConfig{}, actiongame.New(action.Config{}, seed))
	net, err := local.Connect(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := predict.NewClient(predict.ClientConfig{}, actiongame.New(action.Config{}, 0))
	s := &predict.Session{Client: c, Net: net}
	intent := botIntent(c, 5)
	for now := time.Duration(0); now < 60*time.Second; now += 4 * time.Millisecond {
		if err := s.Step(now, intent); err != nil {
			t.Fatal(err)
		}
	}
	tel := c.Telemetry()
	if s.Errors != 0 {
		t.Fatalf("%d messages refused", s.Errors)
	}
	if tel.ParityChecks < 3000 || tel.ParityFails != 0 {
		t.Fatalf("parity: %d checks, %d failures", tel.ParityChecks, tel.ParityFails)
	}
	if tel.Corrections != 0 {
		t.Fatalf("a lone client without loss was corrected %d times", tel.Corrections)
	}
	if tel.ProvisionalSpawns < 20 || tel.ProvisionalMapped+tel.ProvisionalDiscarded+uint64(c.ProvisionalPending()) != tel.ProvisionalSpawns {
		t.Fatalf("provisional spawns %d mapped %d discarded %d", tel.ProvisionalSpawns, tel.ProvisionalMapped, tel.ProvisionalDiscarded)
	}
}

// runSim plays players bots for d of virtual time over simulated links
// with imp each way and returns the clients.
func runSim(t testing.TB, players int, imp impairment, d time.Duration, cfg predict.ServerConfig) []*predict.Client {
	return runSimRules(t, players, imp, d, cfg, action.Config{})
}

// runSimRules is runSim with the game's rules.
func runSimRules(t testing.TB, players int, imp impairment, d time.Duration, cfg predict.ServerConfig, rules action.Config) []*predict.Client {
	return playSim(t, players, imp, d, cfg, rules).clients
}

// simRun is a finished simulated match: the room, its clients and the
// effects each client played.
type simRun struct {
	room    *simRoom
	clients []*predict.Client
	effects [][]predict.Event
}

// playSim plays players bots for d of virtual time over simulated links
// with imp each way, collecting every effect the clients play.
func playSim(t testing.TB, players int, imp impairment, d time.Duration, cfg predict.ServerConfig, rules action.Config) *simRun {
	room := newSimRoom(cfg, actiongame.New(rules, seed))
	run := &simRun{room: room, effects: make([][]predict.Event, players)}
	var sessions []*predict.Session
	var intents []predict.IntentFunc
	for p := 1; p <= players; p++ {
		conn, err := room.connect(0, predict.PlayerID(p), imp, uint64(p))
		if err != nil {
			t.Fatal(err)
		}
		c := predict.NewClient(predict.ClientConfig{}, actiongame.New(rules, 0))
		sessions = append(sessions, &predict.Session{Client: c, Net: conn})
		intents = append(intents, botIntent(c, uint64(100+p)))
		run.clients = append(run.clients, c)
	}
	for now := time.Duration(0); now < d; now += 2 * time.Millisecond {
		for i, s := range sessions {
			if err := s.Step(now, intents[i]); err != nil {
				t.Fatal(err)
			}
			run.effects[i] = append(run.effects[i], s.Client.Effects()...)
		}
	}
	return run
}

// TestLoneClientOverLatencyNoCorrections: without loss, a lone client is
// never corrected, whatever the latency.
func TestLoneClientOverLatencyNoCorrections(t *testing.T) {
	c := runSim(t, 1, impairment{delay: 40 * time.Millisecond}, 30*time.Second, predict.ServerConfig{})[0]
	tel := c.Telemetry()
	if tel.ParityChecks < 1500 || tel.ParityFails != 0 || tel.Corrections != 0 {
		t.Fatalf("parity %d checks %d failures, %d corrections", tel.ParityChecks, tel.ParityFails, tel.Corrections)
	}
	if tel.ReplayDepth.Mean() < 4 {
		t.Fatalf("replay depth %.1f at 80 ms RTT: the client is not predicting ahead", tel.ReplayDepth.Mean())
	}
}

// TestLossyCorrectionsExplained: over 100 ms RTT with jitter and 2% loss,
// with other players shooting, corrections happen and every one has a
// cause.
func TestLossyCorrectionsExplained(t *testing.T) {
	clients := runSim(t, 4, impairment{delay: 50 * time.Millisecond, jitter: 10 * time.Millisecond, loss: 0.02}, 60*time.Second, predict.ServerConfig{})
	var total predict.Telemetry
	for _, c := range clients {
		tel := c.Telemetry()
		total.Corrections += tel.Corrections
		for k := range tel.ByCause {
			total.ByCause[k] += tel.ByCause[k]
		}
		total.ParityChecks += tel.ParityChecks
		total.Snapshots += tel.Snapshots
	}
	t.Logf("%d corrections by cause %v over %d snapshots", total.Corrections, total.ByCause, total.Snapshots)
	if total.Corrections == 0 || total.ByCause[predict.CauseInteraction] == 0 {
		t.Fatalf("no corrections with other players and loss: %v", total.ByCause)
	}
	if n := total.ByCause[predict.CauseUnexplained]; n != 0 {
		t.Fatalf("%d corrections without a cause", n)
	}
}

// TestStaleSnapshotIgnored: a snapshot at or before the anchor (a
// duplicate or a reordered one) changes nothing.
func TestStaleSnapshotIgnored(t *testing.T) {
	local := predict.NewLocalServer(predict.ServerConfig{}, actiongame.New(action.Config{}, seed))
	net, _ := local.Connect(0, 1)
	c := predict.NewClient(predict.ClientConfig{}, actiongame.New(action.Config{}, 0))
	intent := botIntent(c, 5)
	var old []byte
	for now := time.Duration(0); now < time.Second; now += 4 * time.Millisecond {
		net.Poll(now, func(m []byte) {
			if typ, _ := predict.TypeOf(m); typ == predict.TypeSnapshot && old == nil && c.Predicting() {
				old = append([]byte(nil), m...)
			}
			c.Receive(now, m)
		})
		c.Update(now, intent)
		for _, m := range c.Ready() {
			net.Send(now, m.Lane, m.Data)
		}
		c.Advance()
	}
	before := c.Telemetry()
	hash := c.Game().StateHash()
	if err := c.Receive(time.Second, old); err != nil {
		t.Fatal(err)
	}
	after := c.Telemetry()
	if after.SnapsStale != before.SnapsStale+1 || after.Snapshots != before.Snapshots || c.Game().StateHash() != hash {
		t.Fatalf("stale snapshot applied: %+v", after)
	}
}

// TestEffectsFireOnce: over a lone client's match every spawn and hit the
// prediction played is not played again when the server reports it.
func TestEffectsFireOnce(t *testing.T) {
	local := predict.NewLocalServer(predict.ServerConfig{}, actiongame.New(action.Config{}, seed))
	net, _ := local.Connect(0, 1)
	c := predict.NewClient(predict.ClientConfig{}, actiongame.New(action.Config{}, 0))
	s := &predict.Session{Client: c, Net: net}
	intent := botIntent(c, 9)
	seen := map[uint32]int{}
	for now := time.Duration(0); now < 20*time.Second; now += 4 * time.Millisecond {
		s.Step(now, intent)
		for _, e := range c.Effects() {
			if e.Kind == predict.EventSpawn {
				seen[e.ActionSeq]++
			}
		}
	}
	if len(seen) < 10 {
		t.Fatalf("%d casts", len(seen))
	}
	for seq, n := range seen {
		if n != 1 {
			t.Fatalf("the spawn of action %d fired %d times", seq, n)
		}
	}
	if tel := c.Telemetry(); tel.EffectsDeduped == 0 {
		t.Fatal("no server event was recognised as predicted")
	}
}

// TestMissingBaselineAsksForFull: a delta against a baseline the client
// does not hold is not silently dropped: the client acknowledges no
// snapshot in its next InputMessage, and the server's next snapshot to it
// is full.
func TestMissingBaselineAsksForFull(t *testing.T) {
	local := predict.NewLocalServer(predict.ServerConfig{}, actiongame.New(action.Config{}, seed))
	net, _ := local.Connect(0, 1)
	c := predict.NewClient(predict.ClientConfig{}, actiongame.New(action.Config{}, 0))
	intent := botIntent(c, 5)
	forged, asked, full := false, false, false
	for now := time.Duration(0); now < 6*time.Second && !full; now += 4 * time.Millisecond {
		net.Poll(now, func(m []byte) {
			if typ, _ := predict.TypeOf(m); typ == predict.TypeSnapshot && forged && asked {
				var s predict.SnapshotMessage
				if s.Parse(m) == nil && s.BaselineTick == 0 {
					full = true
				}
			}
			c.Receive(now, m)
		})
		if !forged && c.Predicting() && c.AnchorTick() > 200 {
			// A delta against tick 1, long gone from the client's window.
			d, _ := (&predict.SnapshotMessage{ServerTick: c.AnchorTick() + 1, BaselineTick: 1}).Append(nil)
			if err := c.Receive(now, d); !errors.Is(err, predict.ErrNoBaseline) {
				t.Fatalf("delta against a missing baseline: %v", err)
			}
			forged = true
		}
		c.Update(now, intent)
		for _, m := range c.Ready() {
			var in predict.InputMessage
			if forged && in.Parse(m.Data) == nil && in.AckedSnap == 0 {
				asked = true
			}
			net.Send(now, m.Lane, m.Data)
		}
		c.Advance()
	}
	if !forged || !asked || !full || c.Telemetry().SnapsNoBase != 1 {
		t.Fatalf("forged %v, asked for a full snapshot %v, got one %v, %d without baseline", forged, asked, full, c.Telemetry().SnapsNoBase)
	}
}
