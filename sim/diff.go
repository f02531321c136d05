package sim

import (
	"fmt"
	"strconv"

	"github.com/tickwire/tickwire/protocol"
)

// Difference is one field that differs between two snapshots. Entity is 0
// for match-wide fields (tick, rng, next_id, credits[p]). An entity present
// in only one snapshot is reported once with Field "present" (1 or 0).
type Difference struct {
	Entity protocol.EntityID
	Field  string
	A, B   int64
}

// String renders the difference for a desync report.
func (d Difference) String() string {
	if d.Entity == 0 {
		return fmt.Sprintf("%s: %d != %d", d.Field, d.A, d.B)
	}
	return fmt.Sprintf("entity %d %s: %d != %d", d.Entity, d.Field, d.A, d.B)
}

// Diff lists, field by field, how snapshot b differs from snapshot a:
// match-wide fields first, then entities in ID order. Equal snapshots give
// an empty list.
func Diff(a, b []byte) ([]Difference, error) {
	sa, err := decodeSnapshot(a)
	if err != nil {
		return nil, fmt.Errorf("first snapshot: %w", err)
	}
	sb, err := decodeSnapshot(b)
	if err != nil {
		return nil, fmt.Errorf("second snapshot: %w", err)
	}
	var out []Difference
	add := func(id protocol.EntityID, field string, x, y int64) {
		if x != y {
			out = append(out, Difference{Entity: id, Field: field, A: x, B: y})
		}
	}
	add(0, "players", int64(sa.players), int64(sb.players))
	add(0, "map_hash", int64(sa.mapHash), int64(sb.mapHash))
	add(0, "config_hash", int64(sa.cfgHash), int64(sb.cfgHash))
	add(0, "seed", int64(sa.seed), int64(sb.seed))
	add(0, "tick", int64(sa.tick), int64(sb.tick))
	add(0, "rng", int64(sa.rng), int64(sb.rng))
	add(0, "next_id", int64(sa.nextID), int64(sb.nextID))
	for p := range max(sa.players, sb.players) {
		var x, y int64
		if p < sa.players {
			x = int64(sa.credits[p])
		}
		if p < sb.players {
			y = int64(sb.credits[p])
		}
		add(0, "credits["+strconv.Itoa(p+1)+"]", x, y)
	}
	i, j := 0, 0
	for i < len(sa.states) || j < len(sb.states) {
		switch {
		case j == len(sb.states) || (i < len(sa.states) && sa.states[i].ID < sb.states[j].ID):
			add(sa.states[i].ID, "present", 1, 0)
			i++
		case i == len(sa.states) || sb.states[j].ID < sa.states[i].ID:
			add(sb.states[j].ID, "present", 0, 1)
			j++
		default:
			fa := entityFields(&sa.states[i], &sa.behav[i])
			fb := entityFields(&sb.states[j], &sb.behav[j])
			for k := range fa {
				add(sa.states[i].ID, entityFieldNames[k], fa[k], fb[k])
			}
			i++
			j++
		}
	}
	return out, nil
}

var entityFieldNames = [...]string{
	"type", "owner", "pos.x", "pos.y", "pos.z", "health", "health_max", "facing",
	"target", "flags", "cargo", "anim", "veterancy",
	"order", "order_flags", "cooldown", "produced", "kills", "progress", "goal.x", "goal.y",
}

func entityFields(e *EntityState, h *behaviour) [len(entityFieldNames)]int64 {
	return [...]int64{
		int64(e.Type), int64(e.Owner), int64(e.Pos.X), int64(e.Pos.Y), int64(e.Pos.Z),
		int64(e.Health), int64(e.HealthMax), int64(e.Facing), int64(e.Target), int64(e.Flags),
		int64(e.Cargo), int64(e.Anim), int64(e.Veterancy),
		int64(h.mode), int64(h.flags), int64(h.cooldown), int64(h.produced), int64(h.kills),
		int64(h.progress), int64(h.goal.X), int64(h.goal.Y),
	}
}
