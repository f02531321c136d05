package sim

import "github.com/tickwire/tickwire/protocol"

// unreachable marks a cell with no path to the flow field's goal.
const unreachable = ^uint16(0)

// flowField holds, for every cell, the number of steps (8-connected, no
// corner cutting) to the goal cell. It depends only on the static terrain
// and the goal, so it is a cache, never state.
type flowField struct {
	goal int32
	dist []uint16
}

// pathCache keeps the flow fields of recently used goals.
type pathCache struct {
	terrain *Terrain
	fields  map[int32]*flowField // lookups only, never iterated
	ring    []int32              // goals in insertion order; next is the oldest once full
	next    int
	queue   []int32
	size    int // fields kept
}

// pathCacheBytes bounds the memory of cached flow fields.
const pathCacheBytes = 16 << 20

func newPathCache(t *Terrain) pathCache {
	size := max(pathCacheBytes/(2*len(t.cells)), 4)
	return pathCache{terrain: t, fields: make(map[int32]*flowField), size: size}
}

// neighbours in a fixed order: the order breaks ties between equal steps.
var neighbours = [8][2]int{{1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}, {-1, 1}, {-1, -1}, {1, -1}}

// waypoint returns where a unit at p heading for goal should go next: the
// goal itself once in the goal's cell, otherwise the centre of the
// neighbouring cell nearest the goal. ok is false when no path exists.
func (c *pathCache) waypoint(p, goal protocol.WorldPos) (protocol.WorldPos, bool) {
	t := c.terrain
	px, py := CellOf(p)
	gx, gy := CellOf(goal)
	if px == gx && py == gy {
		return goal, true
	}
	f := c.field(int32(gy*t.width + gx))
	here := f.dist[py*t.width+px]
	if here == unreachable {
		return p, false
	}
	bx, by, best := -1, -1, here
	for _, d := range neighbours {
		x, y := px+d[0], py+d[1]
		if !c.step(px, py, x, y) {
			continue
		}
		if v := f.dist[y*t.width+x]; v < best {
			bx, by, best = x, y, v
		}
	}
	if bx < 0 {
		return p, false
	}
	return CellCenter(bx, by), true
}

// step reports whether a unit may go from cell (x0,y0) to the adjacent
// (x1,y1): the cell must be passable and a diagonal may not cut a corner.
func (c *pathCache) step(x0, y0, x1, y1 int) bool {
	t := c.terrain
	if !t.Passable(x1, y1) {
		return false
	}
	if x0 != x1 && y0 != y1 {
		return t.Passable(x1, y0) && t.Passable(x0, y1)
	}
	return true
}

func (c *pathCache) field(goal int32) *flowField {
	if f, ok := c.fields[goal]; ok {
		return f
	}
	var f *flowField
	if len(c.ring) == c.size {
		old := c.ring[c.next]
		f = c.fields[old]
		delete(c.fields, old)
		c.ring[c.next] = goal
		c.next = (c.next + 1) % c.size
	} else {
		f = &flowField{dist: make([]uint16, len(c.terrain.cells))}
		c.ring = append(c.ring, goal)
	}
	c.fill(f, goal)
	c.fields[goal] = f
	return f
}

// fill computes f's distances to goal by breadth-first search.
func (c *pathCache) fill(f *flowField, goal int32) {
	t := c.terrain
	f.goal = goal
	for i := range f.dist {
		f.dist[i] = unreachable
	}
	f.dist[goal] = 0
	q := append(c.queue[:0], goal)
	for h := 0; h < len(q); h++ {
		cur := q[h]
		x0, y0 := int(cur)%t.width, int(cur)/t.width
		next := f.dist[cur] + 1
		if next == unreachable {
			continue // paths this long count as unreachable
		}
		for _, d := range neighbours {
			x, y := x0+d[0], y0+d[1]
			// Searching outward from the goal: a unit walks the step in
			// reverse, and the corner rule is symmetric.
			if !c.step(x0, y0, x, y) {
				continue
			}
			k := int32(y*t.width + x)
			if f.dist[k] == unreachable {
				f.dist[k] = next
				q = append(q, k)
			}
		}
	}
	c.queue = q
}
