package fogauth

import (
	"slices"
	"testing"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// TestIndexEntitiesMatchesSearch compares indexEntities, reused over
// growing and shrinking entity lists, with a binary search of the list.
func TestIndexEntitiesMatchesSearch(t *testing.T) {
	rng := sim.SplitMix64{S: 5}
	var slots []int32
	for round := range 200 {
		var ents []sim.EntityState
		for id := protocol.EntityID(1); id < protocol.EntityID(50+round*20); id++ {
			if rng.Intn(3) == 0 {
				ents = append(ents, sim.EntityState{ID: id})
			}
		}
		slots = indexEntities(slots, ents)
		for i := range ents {
			want, _ := slices.BinarySearchFunc(ents, ents[i].ID, func(e sim.EntityState, id protocol.EntityID) int { return int(e.ID) - int(id) })
			if got := slots[ents[i].ID]; int(got) != want {
				t.Fatalf("round %d: entity %d at %d, slots say %d", round, ents[i].ID, want, got)
			}
		}
	}
}

// TestEntryHintMatchesSearch compares the hinted lookup, with hints right,
// stale and out of range, with the binary search.
func TestEntryHintMatchesSearch(t *testing.T) {
	rng := sim.SplitMix64{S: 9}
	for range 500 {
		var v view
		for id := protocol.EntityID(1); id < 200; id++ {
			if rng.Intn(2) == 0 {
				v.entries = append(v.entries, entry{acked: sim.EntityState{ID: id}})
			}
		}
		for range 50 {
			id := protocol.EntityID(rng.Intn(210))
			hint := int32(rng.Intn(uint64(len(v.entries)+4))) - 2
			if i, ok := v.find(id); ok && rng.Intn(2) == 0 {
				hint = int32(i)
			}
			gi, gok := v.entry(id, hint)
			wi, wok := v.find(id)
			if gi != wi || gok != wok {
				t.Fatalf("entry(%d, hint %d) = %d, %v; search %d, %v", id, hint, gi, gok, wi, wok)
			}
		}
	}
}
