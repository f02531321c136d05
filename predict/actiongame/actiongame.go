// Package actiongame plugs the reference action game (package sim/action)
// into package predict: it implements predict.Game over an action.World.
// It is the worked example of what a game provides to prediction; predict
// itself knows nothing of it.
package actiongame

import (
	"errors"
	"fmt"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/sim/action"
)

// ActionCast is the action id of a cast.
const ActionCast uint8 = 1

// ReasonMerged is the Value of the rejection a cast gets when it is not
// the first of its tick: late inputs merged into one tick may carry
// several casts, and the game casts once per tick.
const ReasonMerged int32 = 16

// Game is an action.World as a predict.Game.
type Game struct {
	W      *action.World
	inputs []action.PlayerInput
	events []action.Event
}

// New returns a game of cfg seeded with seed.
func New(cfg action.Config, seed uint64) *Game { return &Game{W: action.New(cfg, seed)} }

var _ predict.Game = (*Game)(nil)

func (g *Game) Tick() uint64 { return g.W.Tick() }

func (g *Game) Join(p predict.PlayerID) error {
	_, err := g.W.Join(action.PlayerID(p))
	return err
}

func (g *Game) Leave(p predict.PlayerID) { g.W.Leave(action.PlayerID(p)) }

func (g *Game) SetProvisional(on bool) { g.W.SetProvisionalSpawns(on) }

// Input converts a predict.Input to the game's input.
func Input(in *predict.Input) action.Input {
	a := action.Input{MoveX: in.MoveX, MoveY: in.MoveY, Jump: in.Jump, Sprint: in.Sprint, Yaw: in.Yaw, Pitch: in.Pitch}
	for _, act := range in.Actions {
		if act.ID == ActionCast && !a.Cast {
			a.Cast, a.CastSeq = true, act.Sequence
		}
	}
	return a
}

// Intent converts the game's input (as a bot chooses it) to a
// predict.Input; the client numbers it.
func Intent(a action.Input) predict.Input {
	in := predict.Input{MoveX: a.MoveX, MoveY: a.MoveY, Jump: a.Jump, Sprint: a.Sprint, Yaw: a.Yaw, Pitch: a.Pitch}
	if a.Cast {
		in.Actions = []predict.Action{{ID: ActionCast}}
	}
	return in
}

func (g *Game) Step(inputs []predict.PlayerInput, ev []predict.GameEvent) []predict.GameEvent {
	g.inputs = g.inputs[:0]
	for _, pi := range inputs {
		g.inputs = append(g.inputs, action.PlayerInput{Player: action.PlayerID(pi.Player), Input: Input(pi.Input)})
	}
	g.events = g.W.Step(g.inputs, g.events[:0])
	for _, pi := range inputs {
		first := true
		for _, act := range pi.Input.Actions {
			if act.ID != ActionCast {
				continue
			}
			if !first {
				g.events = append(g.events, action.Event{Kind: action.EventCastRejected, Player: action.PlayerID(pi.Player),
					ActionSeq: act.Sequence, Value: int16(ReasonMerged)})
			}
			first = false
		}
	}
	for _, e := range g.events {
		ge := predict.GameEvent{Type: uint8(e.Kind), Player: predict.PlayerID(e.Player), ActionSeq: e.ActionSeq,
			Entity: predict.EntityID(e.Entity), Target: predict.EntityID(e.Target), Value: int32(e.Value)}
		switch e.Kind {
		case action.EventSpawn:
			ge.Kind = predict.EventSpawn
		case action.EventCastRejected:
			ge.Kind = predict.EventRejected
		case action.EventDespawn:
			ge.Kind = predict.EventDespawn
		}
		ev = append(ev, ge)
	}
	return ev
}

func (g *Game) Snapshot(dst []byte) []byte { return g.W.Snapshot(dst) }
func (g *Game) Restore(b []byte) error     { return g.W.Restore(b) }
func (g *Game) StateHash() uint64          { return g.W.StateHash() }

// Split cuts a snapshot into its world record and its entity records.
func (g *Game) Split(b []byte, recs []predict.Record) ([]byte, []predict.Record, error) {
	if len(b) < action.HeaderSize || (len(b)-action.HeaderSize)%action.EntityRecordSize != 0 {
		return nil, recs, fmt.Errorf("%w: snapshot of %d bytes", action.ErrInvalidSnapshot, len(b))
	}
	for off := action.HeaderSize; off < len(b); off += action.EntityRecordSize {
		r := b[off : off+action.EntityRecordSize : off+action.EntityRecordSize]
		recs = append(recs, predict.Record{ID: predict.EntityID(int32(le32(r))), Data: r})
	}
	return b[:action.HeaderSize:action.HeaderSize], recs, nil
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// ErrRecord is a record of the wrong size.
var ErrRecord = errors.New("actiongame: bad entity record")

// Assemble rebuilds a snapshot from a header and records; the entity
// count is rewritten, and a malformed part makes a snapshot Restore
// refuses.
func (g *Game) Assemble(dst, header []byte, recs []predict.Record) []byte {
	start := len(dst)
	dst = append(dst, header...)
	if len(header) == action.HeaderSize {
		n := uint32(len(recs))
		copy(dst[start+action.HeaderSize-4:], []byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)})
	}
	for _, r := range recs {
		dst = append(dst, r.Data...)
	}
	return dst
}

func (g *Game) PlayerEntity(p predict.PlayerID) (predict.EntityID, bool) {
	e, ok := g.W.Player(action.PlayerID(p))
	return predict.EntityID(e.ID), ok
}

func (g *Game) AppendRecord(dst []byte, id predict.EntityID) ([]byte, bool) {
	e, ok := g.W.Entity(action.EntityID(id))
	if !ok {
		return dst, false
	}
	return action.AppendEntity(dst, &e), true
}

func view(e *action.Entity) predict.EntityView {
	return predict.EntityView{
		ID: predict.EntityID(e.ID), Owner: predict.PlayerID(e.Owner),
		Pos: [3]float64{e.Pos.X.Float(), e.Pos.Y.Float(), e.Pos.Z.Float()},
		Vel: [3]float64{e.Vel.X.Float(), e.Vel.Y.Float(), e.Vel.Z.Float()},
	}
}

func (g *Game) View(id predict.EntityID) (predict.EntityView, bool) {
	e, ok := g.W.Entity(action.EntityID(id))
	if !ok {
		return predict.EntityView{}, false
	}
	return view(&e), true
}

func (g *Game) Entities(dst []predict.EntityView) []predict.EntityView {
	es := g.W.Entities()
	for i := range es {
		dst = append(dst, view(&es[i]))
	}
	return dst
}

// ValidateInput refuses intents no client can produce: a movement axis of
// -128 and unknown actions. Speed, acceleration, cooldown and mana are the
// rules' own checks when the input is applied.
func (g *Game) ValidateInput(in *predict.Input) error {
	if in.MoveX == -128 || in.MoveY == -128 || in.Pitch < -16384 || in.Pitch > 16384 {
		return fmt.Errorf("%w: movement or view out of range", predict.ErrRejected)
	}
	for _, a := range in.Actions {
		if a.ID != ActionCast || len(a.Params) != 0 {
			return fmt.Errorf("%w: action %d", predict.ErrRejected, a.ID)
		}
	}
	return nil
}
