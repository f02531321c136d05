package sim_test

import (
	"slices"
	"testing"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/scenario"
)

// TestSpatialIndexMatchesBruteForce compares range queries with a scan of
// every entity, over radii from zero to beyond the map.
func TestSpatialIndexMatchesBruteForce(t *testing.T) {
	md, cfg, team := newMatch(t, scenario.Params{Players: 4, UnitsPerPlayer: 60, Seed: 11}, 11)
	s, err := sim.New(md, cfg, 11)
	if err != nil {
		t.Fatal(err)
	}
	if err := team.Play(s, 150); err != nil {
		t.Fatal(err)
	}
	for _, bucket := range []int{1, 3, 4, 16} {
		idx := sim.NewSpatialIndex(s.Terrain(), bucket)
		es := s.Entities()
		onlyUnits := func(e *sim.EntityState) bool { return sim.CategoryOf(e) == sim.CategoryUnit }
		idx.Rebuild(es, onlyUnits)
		var got []int32
		for i, e := range es {
			radius := protocol.SimCoord(i%23) * protocol.CellSize / 2
			if i%97 == 0 {
				radius = 1 << 20
			}
			got = idx.Query(e.Pos, radius, got)
			var want []int32
			for j := range es {
				dx, dy := int64(es[j].Pos.X-e.Pos.X), int64(es[j].Pos.Y-e.Pos.Y)
				if onlyUnits(&es[j]) && dx*dx+dy*dy <= int64(radius)*int64(radius) {
					want = append(want, int32(j))
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("bucket %d, entity %d radius %d: got %v want %v", bucket, e.ID, radius, got, want)
			}
		}
	}
}
