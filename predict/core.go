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

// firedKey identifies a side effect across replays: a replayed tick
// recreates the same event with the same key. Events tied to an action are
// known by it; the others by their tick.
type firedKey struct {
	kind      EventKind
	typ       uint8
	player    PlayerID
	actionSeq uint32
	target    EntityID
	tick      uint64
}

func keyOf(e *GameEvent, tick uint64) firedKey {
	k := firedKey{kind: e.Kind, typ: e.Type, player: e.Player, actionSeq: e.ActionSeq, target: e.Target}
	if e.ActionSeq == 0 {
		k.tick = tick
		k.target = e.Entity
	}
	return k
}

// SimulationCore steps a Game the same way on the server and on a client:
// the server's authoritative loop, a client's prediction and replay, and
// the local server emulation all call Step. Only the Mode differs.
type SimulationCore struct {
	mode   Mode
	game   Game
	events []GameEvent
	fresh  []GameEvent
	fired  map[firedKey]uint64 // Predictive: side effects fired, by the tick they fired at
}

// NewSimulationCore wraps g.
func NewSimulationCore(g Game, mode Mode) *SimulationCore {
	c := &SimulationCore{mode: mode, game: g}
	if mode == Predictive {
		g.SetProvisional(true)
		c.fired = make(map[firedKey]uint64)
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
// Authoritative mode; in Predictive mode those not already fired by an
// earlier run of the same tick. Both slices are valid until the next Step.
func (c *SimulationCore) Step(inputs []PlayerInput) (all, fresh []GameEvent) {
	c.events = c.game.Step(inputs, c.events[:0])
	if c.mode == Authoritative {
		return c.events, c.events
	}
	c.fresh = c.fresh[:0]
	t := c.game.Tick()
	for i := range c.events {
		k := keyOf(&c.events[i], t)
		if _, ok := c.fired[k]; !ok {
			c.fired[k] = t
			c.fresh = append(c.fresh, c.events[i])
		}
	}
	return c.events, c.fresh
}

// Fired reports whether a predictive core already fired the side effect
// of e (as the server reports it, at tick), and marks it fired: an
// authoritative event the client predicted is not played twice.
func (c *SimulationCore) Fired(e *GameEvent, tick uint64) bool {
	if c.mode == Authoritative {
		return false
	}
	k := keyOf(e, tick)
	_, ok := c.fired[k]
	c.fired[k] = tick
	return ok
}

// Restore replaces the game state with an authoritative snapshot. A
// predictive core forgets the side effects of ticks older than keep: they
// will never be replayed again.
func (c *SimulationCore) Restore(snapshot []byte, keep uint64) error {
	if err := c.game.Restore(snapshot); err != nil {
		return err
	}
	for k, t := range c.fired {
		if t < keep {
			delete(c.fired, k)
		}
	}
	return nil
}
