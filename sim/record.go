package sim

import (
	"encoding/binary"

	"github.com/tickwire/tickwire/protocol"
)

// entityRecordSize is the size of one entity in a snapshot and in the bytes
// a Merkle leaf hashes. See the package documentation for the layout.
const entityRecordSize = 53

// putEntity writes the canonical little-endian record of an entity.
func putEntity(b []byte, e *EntityState, h *behaviour) {
	_ = b[entityRecordSize-1]
	le := binary.LittleEndian
	le.PutUint32(b[0:], uint32(e.ID))
	le.PutUint16(b[4:], uint16(e.Type))
	le.PutUint16(b[6:], uint16(e.Owner))
	le.PutUint32(b[8:], uint32(e.Pos.X))
	le.PutUint32(b[12:], uint32(e.Pos.Y))
	le.PutUint32(b[16:], uint32(e.Pos.Z))
	le.PutUint16(b[20:], e.Health)
	le.PutUint16(b[22:], e.HealthMax)
	le.PutUint32(b[24:], uint32(e.Facing))
	le.PutUint32(b[28:], uint32(e.Target))
	le.PutUint16(b[32:], uint16(e.Flags))
	b[34] = e.Cargo
	b[35] = uint8(e.Anim)
	b[36] = e.Veterancy
	b[37] = uint8(h.mode)
	b[38] = h.flags
	b[39] = h.cooldown
	b[40] = h.produced
	le.PutUint16(b[41:], h.kills)
	le.PutUint16(b[43:], h.progress)
	le.PutUint32(b[45:], uint32(h.goal.X))
	le.PutUint32(b[49:], uint32(h.goal.Y))
}

// getEntity reads a record written by putEntity.
func getEntity(b []byte) (EntityState, behaviour) {
	_ = b[entityRecordSize-1]
	le := binary.LittleEndian
	e := EntityState{
		ID:    protocol.EntityID(le.Uint32(b[0:])),
		Type:  EntityType(le.Uint16(b[4:])),
		Owner: protocol.PlayerID(le.Uint16(b[6:])),
		Pos: protocol.WorldPos{
			X: protocol.SimCoord(le.Uint32(b[8:])),
			Y: protocol.SimCoord(le.Uint32(b[12:])),
			Z: protocol.SimCoord(le.Uint32(b[16:])),
		},
		Health:    le.Uint16(b[20:]),
		HealthMax: le.Uint16(b[22:]),
		Facing:    WAngle(le.Uint32(b[24:])),
		Target:    protocol.EntityID(le.Uint32(b[28:])),
		Flags:     StateFlags(le.Uint16(b[32:])),
		Cargo:     b[34],
		Anim:      AnimState(b[35]),
		Veterancy: b[36],
	}
	h := behaviour{
		mode:     mode(b[37]),
		flags:    b[38],
		cooldown: b[39],
		produced: b[40],
		kills:    le.Uint16(b[41:]),
		progress: le.Uint16(b[43:]),
		goal: protocol.WorldPos{
			X: protocol.SimCoord(le.Uint32(b[45:])),
			Y: protocol.SimCoord(le.Uint32(b[49:])),
		},
	}
	return e, h
}

// worldRecordSize is the size of the world record for n players.
func worldRecordSize(players int) int { return 8 + 8 + 4 + 4*players }

// appendWorld appends the match-wide state: tick, RNG state, next entity id
// and every player's credits.
func (s *Sim) appendWorld(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b, s.tick)
	b = le.AppendUint64(b, s.rng.state)
	b = le.AppendUint32(b, uint32(s.nextID))
	for _, c := range s.credits {
		b = le.AppendUint32(b, uint32(c))
	}
	return b
}
