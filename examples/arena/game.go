package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/tickwire/tickwire/predict"
)

// The arena is a square of side arenaSide in milli-units; positions and
// velocities are integers, so every machine steps the very same values.
const (
	arenaSide = 20_000
	hillSide  = 4_000 // the hill: a square at the centre
	maxSpeed  = 150   // milli-units per tick at full stick
)

// A snapshot is a header then one record per player, ascending id:
//
//	header  tick u64 | records u32
//	record  id i32 | owner u8 | x i32 | y i32 | vx i16 | vy i16 | score u32
const (
	headerSize = 12
	recordSize = 21
)

// errSnapshot reports a snapshot the game cannot restore.
var errSnapshot = errors.New("arena: invalid snapshot")

// errInput reports an input no client of this game produces.
var errInput = errors.New("arena: invalid input")

// player is one disc on the arena; its entity id is its player id.
type player struct {
	id     predict.PlayerID
	x, y   int32
	vx, vy int16
	score  uint32 // ticks spent on the hill
}

// Game is king of the hill: every player steers a disc; each tick on the
// central square scores a point. It implements predict.Game: the server
// runs it authoritatively and each client predicts its own disc with it.
type Game struct {
	tick    uint64
	players []player // ascending id
}

var _ predict.Game = (*Game)(nil)

func (g *Game) Tick() uint64 { return g.tick }

// Join places player p on a corner-ish spot chosen from its id.
func (g *Game) Join(p predict.PlayerID) error {
	i, found := g.find(p)
	if found {
		return fmt.Errorf("arena: player %d already in", p)
	}
	spot := int32(p) * 7919 % (arenaSide / 2)
	g.players = slices.Insert(g.players, i, player{id: p, x: spot, y: arenaSide - spot})
	return nil
}

func (g *Game) Leave(p predict.PlayerID) {
	if i, ok := g.find(p); ok {
		g.players = slices.Delete(g.players, i, i+1)
	}
}

func (g *Game) find(p predict.PlayerID) (int, bool) {
	return slices.BinarySearchFunc(g.players, p, func(e player, p predict.PlayerID) int { return int(e.id) - int(p) })
}

// Step moves every disc by its stick (a player without an input this
// tick keeps its velocity) and scores the hill.
func (g *Game) Step(inputs []predict.PlayerInput, ev []predict.GameEvent) []predict.GameEvent {
	for _, in := range inputs {
		if i, ok := g.find(in.Player); ok {
			g.players[i].vx = int16(int32(in.Input.MoveX) * maxSpeed / 127)
			g.players[i].vy = int16(int32(in.Input.MoveY) * maxSpeed / 127)
		}
	}
	lo, hi := int32(arenaSide-hillSide)/2, int32(arenaSide+hillSide)/2
	for i := range g.players {
		p := &g.players[i]
		p.x = min(max(p.x+int32(p.vx), 0), arenaSide)
		p.y = min(max(p.y+int32(p.vy), 0), arenaSide)
		if p.x >= lo && p.x <= hi && p.y >= lo && p.y <= hi {
			p.score++
		}
	}
	g.tick++
	return ev
}

// SetProvisional: the arena spawns nothing, so there is nothing to name
// provisionally.
func (g *Game) SetProvisional(bool) {}

func (g *Game) Snapshot(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, g.tick)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(g.players)))
	for i := range g.players {
		dst = appendPlayer(dst, &g.players[i])
	}
	return dst
}

func appendPlayer(b []byte, p *player) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(p.id))
	b = append(b, byte(p.id))
	b = binary.LittleEndian.AppendUint32(b, uint32(p.x))
	b = binary.LittleEndian.AppendUint32(b, uint32(p.y))
	b = binary.LittleEndian.AppendUint16(b, uint16(p.vx))
	b = binary.LittleEndian.AppendUint16(b, uint16(p.vy))
	return binary.LittleEndian.AppendUint32(b, p.score)
}

// Restore replaces the state with snapshot b, checked whole first.
func (g *Game) Restore(b []byte) error {
	if len(b) < headerSize || (len(b)-headerSize)%recordSize != 0 ||
		int(binary.LittleEndian.Uint32(b[8:])) != (len(b)-headerSize)/recordSize {
		return fmt.Errorf("%w: %d bytes", errSnapshot, len(b))
	}
	ps := make([]player, 0, (len(b)-headerSize)/recordSize)
	for r := b[headerSize:]; len(r) > 0; r = r[recordSize:] {
		id := binary.LittleEndian.Uint32(r)
		if id == 0 || id > 255 || byte(id) != r[4] || (len(ps) > 0 && predict.PlayerID(id) <= ps[len(ps)-1].id) {
			return fmt.Errorf("%w: player id %d", errSnapshot, id)
		}
		ps = append(ps, player{id: predict.PlayerID(id),
			x: int32(binary.LittleEndian.Uint32(r[5:])), y: int32(binary.LittleEndian.Uint32(r[9:])),
			vx: int16(binary.LittleEndian.Uint16(r[13:])), vy: int16(binary.LittleEndian.Uint16(r[15:])),
			score: binary.LittleEndian.Uint32(r[17:])})
	}
	g.tick, g.players = binary.LittleEndian.Uint64(b), ps
	return nil
}

func (g *Game) StateHash() uint64 {
	h := fnv.New64a()
	h.Write(g.Snapshot(nil))
	return h.Sum64()
}

// Split cuts a snapshot into its header and its records; a record's
// bytes start with its id.
func (g *Game) Split(b []byte, recs []predict.Record) ([]byte, []predict.Record, error) {
	if len(b) < headerSize || (len(b)-headerSize)%recordSize != 0 {
		return nil, recs, fmt.Errorf("%w: %d bytes", errSnapshot, len(b))
	}
	for off := headerSize; off < len(b); off += recordSize {
		r := b[off : off+recordSize : off+recordSize]
		recs = append(recs, predict.Record{ID: predict.EntityID(int32(binary.LittleEndian.Uint32(r))), Data: r})
	}
	return b[:headerSize:headerSize], recs, nil
}

// Assemble is Split's inverse: the header's record count follows recs.
func (g *Game) Assemble(dst, header []byte, recs []predict.Record) []byte {
	start := len(dst)
	dst = append(dst, header...)
	if len(header) == headerSize {
		binary.LittleEndian.PutUint32(dst[start+8:], uint32(len(recs)))
	}
	for _, r := range recs {
		dst = append(dst, r.Data...)
	}
	return dst
}

func (g *Game) PlayerEntity(p predict.PlayerID) (predict.EntityID, bool) {
	_, ok := g.find(p)
	return predict.EntityID(p), ok
}

func (g *Game) AppendRecord(dst []byte, id predict.EntityID) ([]byte, bool) {
	if id <= 0 || id > 255 {
		return dst, false
	}
	i, ok := g.find(predict.PlayerID(id))
	if !ok {
		return dst, false
	}
	return appendPlayer(dst, &g.players[i]), true
}

func view(p *player) predict.EntityView {
	return predict.EntityView{ID: predict.EntityID(p.id), Owner: p.id,
		Pos: [3]float64{float64(p.x) / 1000, float64(p.y) / 1000},
		Vel: [3]float64{float64(p.vx) / 1000, float64(p.vy) / 1000}}
}

func (g *Game) View(id predict.EntityID) (predict.EntityView, bool) {
	if id <= 0 || id > 255 {
		return predict.EntityView{}, false
	}
	i, ok := g.find(predict.PlayerID(id))
	if !ok {
		return predict.EntityView{}, false
	}
	return view(&g.players[i]), true
}

func (g *Game) Entities(dst []predict.EntityView) []predict.EntityView {
	for i := range g.players {
		dst = append(dst, view(&g.players[i]))
	}
	return dst
}

// ValidateInput refuses what no client of this game sends: actions (the
// arena has none) and a stick of -128 (the quantisation stops at -127).
func (g *Game) ValidateInput(in *predict.Input) error {
	if len(in.Actions) > 0 || in.MoveX == -128 || in.MoveY == -128 {
		return errInput
	}
	return nil
}

// Score is player p's score.
func (g *Game) Score(p predict.PlayerID) uint32 {
	if i, ok := g.find(p); ok {
		return g.players[i].score
	}
	return 0
}
