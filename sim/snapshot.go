package sim

import (
	"encoding/binary"
	"fmt"

	"github.com/tickwire/tickwire/protocol"
)

const (
	snapshotMagic   = "TWS1"
	snapshotVersion = 1
	snapshotHeader  = 35 // magic, version, width, height, players, map hash, config hash, seed
)

// Snapshot serialises the whole simulation state (see the package
// documentation for the layout). The encoding is canonical: equal states
// give equal bytes. The map and rules are not included, only their hashes:
// Restore needs a Sim created from the same MapData and Config.
func (s *Sim) Snapshot() []byte {
	le := binary.LittleEndian
	b := make([]byte, 0, snapshotHeader+worldRecordSize(s.players)+4+len(s.states)*entityRecordSize)
	b = append(b, snapshotMagic...)
	b = append(b, snapshotVersion)
	b = le.AppendUint16(b, uint16(s.terrain.width))
	b = le.AppendUint16(b, uint16(s.terrain.height))
	b = le.AppendUint16(b, uint16(s.players))
	b = le.AppendUint64(b, s.mapHash)
	b = le.AppendUint64(b, s.cfgHash)
	b = le.AppendUint64(b, s.seed)
	b = s.appendWorld(b)
	b = le.AppendUint32(b, uint32(len(s.states)))
	for i := range s.states {
		n := len(b)
		b = b[:n+entityRecordSize]
		putEntity(b[n:], &s.states[i], &s.behav[i])
	}
	return b
}

// snapshot is a decoded, validated Snapshot.
type snapshot struct {
	width, height int
	players       int
	mapHash       uint64
	cfgHash       uint64
	seed          uint64
	tick          uint64
	rng           uint64
	nextID        protocol.EntityID
	credits       []int32
	states        []EntityState
	behav         []behaviour
}

func snapErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidSnapshot}, args...)...)
}

// decodeSnapshot parses and validates b without trusting any of it: every
// length is checked before use and every field that the tick systems index
// with or divide by is range-checked, so a decoded snapshot can be run.
func decodeSnapshot(b []byte) (*snapshot, error) {
	le := binary.LittleEndian
	if len(b) < snapshotHeader || string(b[:4]) != snapshotMagic {
		return nil, snapErr("bad magic or short header")
	}
	if b[4] != snapshotVersion {
		return nil, snapErr("version %d", b[4])
	}
	d := &snapshot{
		width:   int(le.Uint16(b[5:])),
		height:  int(le.Uint16(b[7:])),
		players: int(le.Uint16(b[9:])),
		mapHash: le.Uint64(b[11:]),
		cfgHash: le.Uint64(b[19:]),
		seed:    le.Uint64(b[27:]),
	}
	if d.width < 1 || d.height < 1 || d.width > MaxMapSize || d.height > MaxMapSize {
		return nil, snapErr("map size %dx%d", d.width, d.height)
	}
	if d.players < 1 || d.players > MaxPlayers {
		return nil, snapErr("%d players", d.players)
	}
	p := b[snapshotHeader:]
	if len(p) < worldRecordSize(d.players)+4 {
		return nil, snapErr("truncated world record")
	}
	d.tick = le.Uint64(p[0:])
	d.rng = le.Uint64(p[8:])
	d.nextID = protocol.EntityID(le.Uint32(p[16:]))
	d.credits = make([]int32, d.players)
	for i := range d.credits {
		d.credits[i] = int32(le.Uint32(p[20+4*i:]))
		if d.credits[i] < 0 || d.credits[i] > maxCredits {
			return nil, snapErr("player %d has %d credits", i+1, d.credits[i])
		}
	}
	p = p[worldRecordSize(d.players):]
	n := le.Uint32(p)
	p = p[4:]
	if uint64(len(p)) != uint64(n)*entityRecordSize {
		return nil, snapErr("%d bytes for %d entities", len(p), n)
	}
	d.states = make([]EntityState, n)
	d.behav = make([]behaviour, n)
	t := &Terrain{width: d.width, height: d.height}
	var prev protocol.EntityID
	for i := range d.states {
		e, h := getEntity(p[i*entityRecordSize:])
		if err := checkEntity(t, d, prev, &e, &h); err != nil {
			return nil, err
		}
		d.states[i], d.behav[i] = e, h
		prev = e.ID
	}
	return d, nil
}

func checkEntity(t *Terrain, d *snapshot, prev protocol.EntityID, e *EntityState, h *behaviour) error {
	switch {
	case e.ID <= prev || e.ID >= d.nextID:
		return snapErr("entity id %d out of order or not below next id %d", e.ID, d.nextID)
	case !validType(e.Type) || !ownerFits(e.Type, e.Owner, d.players):
		return snapErr("entity %d: type %d owned by %d", e.ID, e.Type, e.Owner)
	case !t.Contains(e.Pos) || !t.Contains(h.goal) || h.goal.Z != 0:
		return snapErr("entity %d: position or goal off the map", e.ID)
	case e.HealthMax != rulesOf(e.Type).HealthMax || e.Health == 0 || e.Health > e.HealthMax:
		return snapErr("entity %d: health %d/%d", e.ID, e.Health, e.HealthMax)
	case e.Facing < 0 || e.Facing >= FullTurn:
		return snapErr("entity %d: facing %d", e.ID, e.Facing)
	case e.Flags&^knownFlags != 0 || e.Anim >= numAnims || e.Veterancy > MaxVeterancy:
		return snapErr("entity %d: flags, animation or veterancy out of range", e.ID)
	case h.mode >= numModes || h.flags&^knownBFlags != 0:
		return snapErr("entity %d: order state out of range", e.ID)
	}
	return nil
}

// Restore replaces the simulation state with a Snapshot's. The receiver
// must have been created from the same MapData and Config (the snapshot
// carries their hashes). On any error the state is left unchanged; Restore
// never panics, whatever the bytes.
func (s *Sim) Restore(b []byte) error {
	d, err := decodeSnapshot(b)
	if err != nil {
		return err
	}
	if d.width != s.terrain.width || d.height != s.terrain.height || d.players != s.players ||
		d.mapHash != s.mapHash || d.cfgHash != s.cfgHash {
		return ErrSnapshotMismatch
	}
	for i := range d.states {
		e := &d.states[i]
		if rulesOf(e.Type).Category != CategoryDecoration && !s.terrain.passableAt(e.Pos) {
			return snapErr("entity %d stands on a blocking cell", e.ID)
		}
		if e.Pos.Z != s.terrain.groundZ(e.Pos) {
			return snapErr("entity %d: height %d is not the ground's", e.ID, e.Pos.Z)
		}
	}
	s.seed, s.tick, s.rng, s.nextID = d.seed, d.tick, rng{state: d.rng}, d.nextID
	s.credits, s.states, s.behav = d.credits, d.states, d.behav
	return nil
}
