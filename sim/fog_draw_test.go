package sim

import (
	"testing"

	"github.com/tickwire/tickwire/protocol"
)

// TestDiscDrawingsMatchBruteForce compares both ways of drawing a group
// of discs, stamping each and dilating the group's bitmap, with the
// definition cell by cell: random maps (one word wide, several words, not
// a multiple of 64), ranges from 0 to past the map's size, sources on the
// edges and crowded or sparse.
func TestDiscDrawingsMatchBruteForce(t *testing.T) {
	rng := SplitMix64{S: 7}
	for round := range 300 {
		w, h := 1+int(rng.Intn(150)), 1+int(rng.Intn(90))
		r := int(rng.Intn(12))
		if round%10 == 0 {
			r = int(rng.Intn(200))
		}
		words := (w + 63) / 64
		g := discGroup{r: r, src: make([]uint64, words*h)}
		type cell struct{ x, y int }
		var cells []cell
		for range 1 + rng.Intn(uint64(max(w*h/8, 1))) {
			x, y := int(rng.Intn(uint64(w))), int(rng.Intn(uint64(h)))
			switch rng.Intn(5) {
			case 0:
				x = w - 1
			case 1:
				y = 0
			}
			cells = append(cells, cell{x, y})
			g.src[y*words+x>>6] |= 1 << (x & 63)
		}
		each := &playerFog{width: w, height: h, words: words, seen: make([]uint64, words*h)}
		dil := &playerFog{width: w, height: h, words: words, seen: make([]uint64, words*h)}
		each.stampEach(&g)
		dil.dilateDisc(&g, nil)
		for y := range h {
			for x := range w {
				want := false
				for _, c := range cells {
					if (x-c.x)*(x-c.x)+(y-c.y)*(y-c.y) <= r*r {
						want = true
						break
					}
				}
				if got := each.cell(x, y); got != want {
					t.Fatalf("round %d (%dx%d, r %d): stamped cell %d,%d = %v, want %v", round, w, h, r, x, y, got, want)
				}
				if got := dil.cell(x, y); got != want {
					t.Fatalf("round %d (%dx%d, r %d): dilated cell %d,%d = %v, want %v", round, w, h, r, x, y, got, want)
				}
			}
		}
	}
}

// TestDrawChoosesBothWays checks that the provider's drawing uses both
// ways on the benchmark's kind of map (so the brute-force comparisons of
// the provider exercise both): sparse groups are stamped, crowded ones
// dilated.
func TestDrawChoosesBothWays(t *testing.T) {
	pf := &playerFog{width: 64, height: 64, words: 1, seen: make([]uint64, 64)}
	f := &RadiusFogProvider{}
	var sparse, crowded []SightSource
	for i := range 4 {
		sparse = append(sparse, SightSource{Pos: CellCenter(10*i, 5), Range: 5 * protocol.CellSize})
	}
	for i := range 120 {
		crowded = append(crowded, SightSource{Pos: CellCenter(i%60, i/60*30), Range: 7 * protocol.CellSize})
	}
	f.draw(pf, sparse)
	if f.groups[0].crowded(pf) {
		t.Fatalf("4 sources were not stamped one by one")
	}
	f.draw(pf, crowded)
	if !f.groups[0].crowded(pf) {
		t.Fatalf("120 sources were not dilated")
	}
}
