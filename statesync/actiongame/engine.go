package actiongame

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/tickwire/tickwire/sim/action"
	"github.com/tickwire/tickwire/statesync/msg"
)

// ErrEntity: an entity encoding the game cannot hold.
var ErrEntity = errors.New("actiongame: invalid entity")

// Engine is an action.World as a statesync.Engine.
type Engine struct {
	cfg  action.Config
	seed uint64
	w    *action.World
	buf  []byte
	in   []action.PlayerInput

	// Edits from SetEntity, RemoveEntity and Reset are collected here and
	// applied as one Restore before the world is next used.
	edited  bool
	header  []byte
	records map[uint32][]byte
	err     error
}

// New returns the engine of a new match.
func New(cfg action.Config, seed uint64) *Engine {
	return &Engine{cfg: cfg, seed: seed, w: action.New(cfg, seed)}
}

// World returns the game's world, with any pending edits applied. Use it
// to read the game (a bot deciding its input), never to change it.
func (e *Engine) World() *action.World {
	e.flush()
	return e.w
}

// Err is the first error applying edits hit (the state is then the one
// before them, and its hash will say so).
func (e *Engine) Err() error { return e.err }

// Step runs one game tick with the frame's inputs.
func (e *Engine) Step(frame uint32, inputs []msg.ClientInput) {
	e.flush()
	e.in = e.in[:0]
	for _, ci := range inputs {
		if ci.Client == 0 || ci.Client > 255 {
			continue
		}
		p := action.PlayerID(ci.Client)
		switch in, kind := DecodeInput(ci.Data); kind {
		case KindLeave:
			e.w.Leave(p)
		case KindJoin:
			_, _ = e.w.Join(p) // a second join or a full game changes nothing
		case KindInput:
			e.in = append(e.in, action.PlayerInput{Player: p, Input: in})
		}
	}
	e.w.Step(e.in, nil)
}

// Entities yields the world record as entity 0, then every game entity.
func (e *Engine) Entities() iter.Seq2[uint32, []byte] {
	return func(yield func(uint32, []byte) bool) {
		e.flush()
		e.buf = e.w.Snapshot(e.buf[:0])
		if !yield(0, e.buf[:action.HeaderSize]) {
			return
		}
		for off := action.HeaderSize; off+action.EntityRecordSize <= len(e.buf); off += action.EntityRecordSize {
			rec := e.buf[off : off+action.EntityRecordSize]
			if !yield(binary.LittleEndian.Uint32(rec), rec) {
				return
			}
		}
	}
}

// SetEntity creates or replaces an entity (id 0: the world record).
func (e *Engine) SetEntity(id uint32, data []byte) error {
	switch {
	case id == 0 && len(data) != action.HeaderSize:
		return fmt.Errorf("%w: world record of %d bytes", ErrEntity, len(data))
	case id != 0 && len(data) != action.EntityRecordSize:
		return fmt.Errorf("%w: entity %d of %d bytes", ErrEntity, id, len(data))
	case id != 0 && binary.LittleEndian.Uint32(data) != id:
		return fmt.Errorf("%w: entity %d holds id %d", ErrEntity, id, binary.LittleEndian.Uint32(data))
	}
	if id != 0 {
		if _, err := action.ParseEntity(data); err != nil {
			return fmt.Errorf("%w: %w", ErrEntity, err)
		}
	}
	e.edit()
	if id == 0 {
		e.header = slices.Clone(data)
	} else {
		e.records[id] = slices.Clone(data)
	}
	return nil
}

// RemoveEntity deletes an entity.
func (e *Engine) RemoveEntity(id uint32) {
	e.edit()
	if id == 0 {
		e.header = nil
	}
	delete(e.records, id)
}

// Reset empties the state.
func (e *Engine) Reset() {
	e.edited, e.header, e.records = true, nil, map[uint32][]byte{}
}

// edit starts collecting edits from the world's current state.
func (e *Engine) edit() {
	if e.edited {
		return
	}
	e.edited, e.records = true, map[uint32][]byte{}
	e.buf = e.w.Snapshot(e.buf[:0])
	e.header = slices.Clone(e.buf[:action.HeaderSize])
	for off := action.HeaderSize; off < len(e.buf); off += action.EntityRecordSize {
		rec := e.buf[off : off+action.EntityRecordSize]
		e.records[binary.LittleEndian.Uint32(rec)] = slices.Clone(rec)
	}
}

// flush applies the collected edits with one Restore. A state without a
// world record is a new match's.
func (e *Engine) flush() {
	if !e.edited {
		return
	}
	e.edited = false
	fresh := action.New(e.cfg, e.seed)
	header := e.header
	if header == nil {
		header = fresh.Snapshot(nil)[:action.HeaderSize]
	}
	snap := slices.Clone(header)
	binary.LittleEndian.PutUint32(snap[41:], uint32(len(e.records)))
	ids := make([]uint32, 0, len(e.records))
	for id := range e.records {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		snap = append(snap, e.records[id]...)
	}
	e.records, e.header = nil, nil
	if err := fresh.Restore(snap); err != nil {
		if e.err == nil {
			e.err = err
		}
		return
	}
	e.w = fresh
}

// DiffEntity names the fields in which two encodings of an entity differ.
func (e *Engine) DiffEntity(id uint32, mine, theirs []byte) string {
	if mine == nil || theirs == nil {
		return fmt.Sprintf("entity %d: only on one side (mine %d bytes, theirs %d bytes)", id, len(mine), len(theirs))
	}
	if id == 0 {
		return fmt.Sprintf("entity 0 (world record): % x != % x", mine, theirs)
	}
	a, errA := action.ParseEntity(mine)
	b, errB := action.ParseEntity(theirs)
	if errA != nil || errB != nil {
		return fmt.Sprintf("entity %d: % x != % x", id, mine, theirs)
	}
	var out []byte
	field := func(name string, x, y any) {
		if x != y {
			if len(out) > 0 {
				out = append(out, ", "...)
			}
			out = fmt.Appendf(out, "%s %v != %v", name, x, y)
		}
	}
	field("Kind", a.Kind, b.Kind)
	field("Owner", a.Owner, b.Owner)
	field("Pos", a.Pos, b.Pos)
	field("Vel", a.Vel, b.Vel)
	field("Yaw", a.Yaw, b.Yaw)
	field("Pitch", a.Pitch, b.Pitch)
	field("Health", a.Health, b.Health)
	field("Mana", a.Mana, b.Mana)
	field("Timer", a.Timer, b.Timer)
	field("Respawn", a.Respawn, b.Respawn)
	field("Intent", [2]int8{a.IntentX, a.IntentY}, [2]int8{b.IntentX, b.IntentY})
	field("Flags", a.Flags, b.Flags)
	field("ActionSeq", a.ActionSeq, b.ActionSeq)
	return fmt.Sprintf("entity %d: %s", id, out)
}
