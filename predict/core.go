package predict

// Mode is how a SimulationCore runs its game.
type Mode uint8

// Modes.
const (
	// Authoritative is the server's mode, and the local server emulation's:
	// every event is new and spawns take authoritative ids.
	Authoritative Mode = iota
	// Predictive is a client's: spawns take provisional ids and an event
	// that fired once (a cast's sound, a spawn) does not fire again when
	// reconciliation replays the tick that caused it.
	Predictive
)

func (m Mode) String() string {
	if m == Predictive {
		return "predictive"
	}
	return "authoritative"
}

// SimulationCore steps a Game the same way on the server and on a client:
// the server's authoritative loop, a client's prediction and replay, and
// the local server emulation all call Step. Only the Mode differs.
type SimulationCore struct {
	mode   Mode
	game   Game
	events []GameEvent
	fresh  []GameEvent
	ledger effectLedger // Predictive: the side effects fired
}

// DefaultEffectMemory is how many side effects a predictive core
// remembers at most (see effectLedger).
const DefaultEffectMemory = 4096

// NewSimulationCore wraps g.
func NewSimulationCore(g Game, mode Mode) *SimulationCore {
	return newSimulationCore(g, mode, DefaultEffectMemory)
}

func newSimulationCore(g Game, mode Mode, effects int) *SimulationCore {
	c := &SimulationCore{mode: mode, game: g}
	if mode == Predictive {
		g.SetProvisional(true)
		c.ledger = newEffectLedger(effects)
	}
	return c
}

// Mode is the core's mode.
func (c *SimulationCore) Mode() Mode { return c.mode }

// Game is the wrapped game.
func (c *SimulationCore) Game() Game { return c.game }

// Tick is the game's tick.
func (c *SimulationCore) Tick() uint64 { return c.game.Tick() }

// Step advances one tick. It returns every event of the tick and, of
// those, the ones whose side effects should fire now: all of them in
// Authoritative mode; in Predictive mode the effects of actions not fired
// before (by an earlier run of the same tick or by the server's event).
// Both slices are valid until the next Step.
func (c *SimulationCore) Step(inputs []PlayerInput) (all, fresh []GameEvent) {
	c.events = c.game.Step(inputs, c.events[:0])
	if c.mode == Authoritative {
		return c.events, c.events
	}
	c.fresh = c.fresh[:0]
	for i := range c.events {
		if c.ledger.predicted(&c.events[i]) {
			c.fresh = append(c.fresh, c.events[i])
		}
	}
	return c.events, c.fresh
}

// Heard reports whether the side effect of a new server event should fire
// now: always in Authoritative mode; in Predictive mode unless the
// prediction already fired it.
func (c *SimulationCore) Heard(e *Event) bool {
	return c.mode == Authoritative || c.ledger.heard(e)
}

// Restore replaces the game state with an authoritative snapshot.
func (c *SimulationCore) Restore(snapshot []byte) error { return c.game.Restore(snapshot) }

// Settle lets a predictive core forget the side effects that can no
// longer come back: the anchor is at tick anchor, the reliable lane
// delivered every server event up to id reliable, and the actions of
// player me from sequence pendingFrom on (0: none) are in inputs the
// server has not confirmed yet.
func (c *SimulationCore) Settle(anchor, reliable uint64, me PlayerID, pendingFrom uint32) {
	if c.mode == Predictive {
		c.ledger.settle(anchor, reliable, me, pendingFrom)
	}
}
