package statesync_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/tickwire/tickwire/statesync/msg"
)

// testEngine is a small deterministic game for the tests: units that
// move, bounce, lose health and die, new units spawned every few frames,
// and one avatar per client steered by its inputs. Entity 0 holds the
// world's random generator and next id.
type testEngine struct {
	ids    []uint32 // ascending
	units  map[uint32]*unit
	rng    uint64
	nextID uint32
	target int // entity count the spawner aims for
	buf    []byte
}

type unit struct {
	X, Y   int32
	VX, VY int16
	HP     uint8
	Owner  uint32
}

const unitLen = 4 + 4 + 2 + 2 + 1 + 4

func newTestEngine(target int) *testEngine {
	e := &testEngine{target: target}
	e.Reset()
	return e
}

func (e *testEngine) Reset() {
	e.ids, e.units, e.rng, e.nextID = nil, map[uint32]*unit{}, 0x9E3779B97F4A7C15, 1
}

func (e *testEngine) rand() uint32 {
	e.rng ^= e.rng << 13
	e.rng ^= e.rng >> 7
	e.rng ^= e.rng << 17
	return uint32(e.rng >> 32)
}

func (e *testEngine) spawn(owner uint32) {
	id := e.nextID
	e.nextID++
	e.units[id] = &unit{X: int32(e.rand() % 1000), Y: int32(e.rand() % 1000),
		VX: int16(e.rand()%7) - 3, VY: int16(e.rand()%7) - 3, HP: uint8(50 + e.rand()%100), Owner: owner}
	e.ids = append(e.ids, id)
}

func (e *testEngine) Step(frame uint32, inputs []msg.ClientInput) {
	for _, in := range inputs {
		if len(in.Data) == 0 {
			continue
		}
		// the avatar of a client is its first unit with Owner == client
		for _, id := range e.ids {
			if u := e.units[id]; u.Owner == in.Client {
				u.VX, u.VY = int16(int8(in.Data[0]))%4, int16(int8(in.Data[0])>>2)%4
				break
			}
		}
	}
	alive := e.ids[:0]
	for _, id := range e.ids {
		u := e.units[id]
		u.X += int32(u.VX)
		u.Y += int32(u.VY)
		if u.X < 0 || u.X > 1000 {
			u.VX = -u.VX
		}
		if u.Y < 0 || u.Y > 1000 {
			u.VY = -u.VY
		}
		if u.Owner == 0 && frame%3 == 0 {
			u.HP--
		}
		if u.HP == 0 {
			delete(e.units, id)
			continue
		}
		alive = append(alive, id)
	}
	e.ids = alive
	if frame%4 == 0 || len(e.ids) < e.target {
		for range 1 + min(8, max(0, e.target-len(e.ids))/8) {
			e.spawn(0)
		}
	}
	for _, in := range inputs {
		if len(in.Data) > 1 && in.Data[1] == 1 { // a join input spawns the avatar
			e.spawn(in.Client)
		}
	}
}

func (e *testEngine) Entities() iter.Seq2[uint32, []byte] {
	return func(yield func(uint32, []byte) bool) {
		e.buf = binary.LittleEndian.AppendUint64(e.buf[:0], e.rng)
		e.buf = binary.LittleEndian.AppendUint32(e.buf, e.nextID)
		if !yield(0, e.buf) {
			return
		}
		for _, id := range e.ids {
			u := e.units[id]
			b := e.buf[:0]
			b = binary.LittleEndian.AppendUint32(b, uint32(u.X))
			b = binary.LittleEndian.AppendUint32(b, uint32(u.Y))
			b = binary.LittleEndian.AppendUint16(b, uint16(u.VX))
			b = binary.LittleEndian.AppendUint16(b, uint16(u.VY))
			b = append(b, u.HP)
			b = binary.LittleEndian.AppendUint32(b, u.Owner)
			e.buf = b
			if !yield(id, b) {
				return
			}
		}
	}
}

var errBadEntity = errors.New("test engine: bad entity")

func (e *testEngine) SetEntity(id uint32, data []byte) error {
	if id == 0 {
		if len(data) != 12 {
			return errBadEntity
		}
		e.rng, e.nextID = binary.LittleEndian.Uint64(data), binary.LittleEndian.Uint32(data[8:])
		return nil
	}
	u, err := decodeUnit(data)
	if err != nil {
		return err
	}
	if _, ok := e.units[id]; !ok {
		i, _ := slices.BinarySearch(e.ids, id)
		e.ids = slices.Insert(e.ids, i, id)
	}
	e.units[id] = &u
	return nil
}

func decodeUnit(data []byte) (unit, error) {
	if len(data) != unitLen {
		return unit{}, errBadEntity
	}
	return unit{
		X: int32(binary.LittleEndian.Uint32(data)), Y: int32(binary.LittleEndian.Uint32(data[4:])),
		VX: int16(binary.LittleEndian.Uint16(data[8:])), VY: int16(binary.LittleEndian.Uint16(data[10:])),
		HP: data[12], Owner: binary.LittleEndian.Uint32(data[13:]),
	}, nil
}

func (e *testEngine) RemoveEntity(id uint32) {
	if _, ok := e.units[id]; ok {
		delete(e.units, id)
		i, _ := slices.BinarySearch(e.ids, id)
		e.ids = slices.Delete(e.ids, i, i+1)
	}
}

// DiffEntity names the differing fields.
func (e *testEngine) DiffEntity(id uint32, mine, theirs []byte) string {
	if mine == nil || theirs == nil {
		return fmt.Sprintf("entity %d: present on one side only (mine %d bytes, theirs %d bytes)", id, len(mine), len(theirs))
	}
	a, errA := decodeUnit(mine)
	b, errB := decodeUnit(theirs)
	if errA != nil || errB != nil {
		return fmt.Sprintf("entity %d: % x != % x", id, mine, theirs)
	}
	var s []string
	field := func(name string, x, y any) {
		if x != y {
			s = append(s, fmt.Sprintf("%s %v != %v", name, x, y))
		}
	}
	field("X", a.X, b.X)
	field("Y", a.Y, b.Y)
	field("VX", a.VX, b.VX)
	field("VY", a.VY, b.VY)
	field("HP", a.HP, b.HP)
	field("Owner", a.Owner, b.Owner)
	return fmt.Sprintf("entity %d: %s", id, strings.Join(s, ", "))
}

// corrupt changes one field of a unit, as a bug or a cosmic ray would.
func (e *testEngine) corrupt(id uint32) bool {
	u, ok := e.units[id]
	if ok {
		u.HP ^= 0x40
	}
	return ok
}
