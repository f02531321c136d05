package sim

import "github.com/tickwire/tickwire/protocol"

// SpatialIndex is a uniform grid over the map for range queries. Rebuild
// sorts entities into square buckets with a counting sort (O(n), no
// allocation once warm); Query visits only the buckets a circle overlaps.
// Results are indexes into the slice given to Rebuild, in a deterministic
// order (bucket by bucket, ascending index within a bucket).
type SpatialIndex struct {
	bucket     protocol.SimCoord // bucket edge
	cols, rows int
	start      []int32 // bucket b holds items[start[b]:start[b+1]]
	items      []spatialItem
	bucketOf   []int32 // scratch: bucket of each entity, -1 if excluded
}

type spatialItem struct {
	index int32
	x, y  protocol.SimCoord
	owner protocol.PlayerID
	id    protocol.EntityID
}

// NewSpatialIndex returns an index for t with buckets bucketCells cells wide.
func NewSpatialIndex(t *Terrain, bucketCells int) *SpatialIndex {
	bucketCells = max(bucketCells, 1)
	cols := (t.width + bucketCells - 1) / bucketCells
	rows := (t.height + bucketCells - 1) / bucketCells
	return &SpatialIndex{
		bucket: protocol.SimCoord(bucketCells) * protocol.CellSize,
		cols:   cols,
		rows:   rows,
		start:  make([]int32, cols*rows+1),
	}
}

// Rebuild indexes the entities for which include returns true (all of them
// when include is nil). Entities off the map are clamped to its edge.
func (x *SpatialIndex) Rebuild(entities []EntityState, include func(*EntityState) bool) {
	clear(x.start)
	x.bucketOf = x.bucketOf[:0]
	for i := range entities {
		e := &entities[i]
		b := int32(-1)
		if include == nil || include(e) {
			b = x.bucketAt(e.Pos)
			x.start[b+1]++
		}
		x.bucketOf = append(x.bucketOf, b)
	}
	for b := 1; b < len(x.start); b++ {
		x.start[b] += x.start[b-1]
	}
	n := x.start[len(x.start)-1]
	if cap(x.items) < int(n) {
		x.items = make([]spatialItem, n)
	}
	x.items = x.items[:n]
	// start[b] serves as the fill cursor of bucket b, then is shifted back.
	for i, b := range x.bucketOf {
		if b < 0 {
			continue
		}
		e := &entities[i]
		x.items[x.start[b]] = spatialItem{index: int32(i), x: e.Pos.X, y: e.Pos.Y, owner: e.Owner, id: e.ID}
		x.start[b]++
	}
	copy(x.start[1:], x.start[:len(x.start)-1])
	x.start[0] = 0
}

func (x *SpatialIndex) bucketAt(p protocol.WorldPos) int32 {
	cx := min(max(int(p.X/x.bucket), 0), x.cols-1)
	cy := min(max(int(p.Y/x.bucket), 0), x.rows-1)
	return int32(cy*x.cols + cx)
}

// span returns the bucket rectangle a circle overlaps.
func (x *SpatialIndex) span(center protocol.WorldPos, radius protocol.SimCoord) (x0, x1, y0, y1 int) {
	x0 = min(max(int((center.X-radius)/x.bucket), 0), x.cols-1)
	x1 = min(max(int((center.X+radius)/x.bucket), 0), x.cols-1)
	y0 = min(max(int((center.Y-radius)/x.bucket), 0), x.rows-1)
	y1 = min(max(int((center.Y+radius)/x.bucket), 0), x.rows-1)
	return x0, x1, y0, y1
}

// nearestOther returns the index of the indexed entity nearest to center
// within radius whose owner is not owner (ties go to the lower entity ID),
// or -1. It is the simulation's target acquisition, fused into one pass.
func (x *SpatialIndex) nearestOther(center protocol.WorldPos, radius protocol.SimCoord, owner protocol.PlayerID) int {
	best, bestD, bestID := -1, int64(radius)*int64(radius)+1, protocol.EntityID(0)
	x0, x1, y0, y1 := x.span(center, radius)
	for by := y0; by <= y1; by++ {
		row := by * x.cols
		for _, it := range x.items[x.start[row+x0]:x.start[row+x1+1]] {
			if it.owner == owner {
				continue
			}
			dx, dy := int64(it.x-center.X), int64(it.y-center.Y)
			if d := dx*dx + dy*dy; d < bestD || (d == bestD && best >= 0 && it.id < bestID) {
				best, bestD, bestID = int(it.index), d, it.id
			}
		}
	}
	return best
}

// Query appends to dst[:0] the indexes of indexed entities whose position at
// Rebuild time lies within radius of center (boundary included).
func (x *SpatialIndex) Query(center protocol.WorldPos, radius protocol.SimCoord, dst []int32) []int32 {
	dst = dst[:0]
	if radius < 0 {
		return dst
	}
	r2 := int64(radius) * int64(radius)
	x0, x1, y0, y1 := x.span(center, radius)
	for by := y0; by <= y1; by++ {
		row := by * x.cols
		for _, it := range x.items[x.start[row+x0]:x.start[row+x1+1]] {
			dx, dy := int64(it.x-center.X), int64(it.y-center.Y)
			if dx*dx+dy*dy <= r2 {
				dst = append(dst, it.index)
			}
		}
	}
	return dst
}
