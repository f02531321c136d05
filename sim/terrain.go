package sim

import (
	"fmt"

	"github.com/tickwire/tickwire/protocol"
)

// MaxMapSize bounds a map's width and height in cells.
const MaxMapSize = 1024

// Cell is one map cell: bit 7 marks it blocking, bits 0..6 hold its height.
type Cell uint8

const cellBlocked Cell = 0x80

// NewCell returns a cell of the given height (0..127, clamped).
func NewCell(height uint8, blocked bool) Cell {
	c := Cell(min(height, 127))
	if blocked {
		c |= cellBlocked
	}
	return c
}

// Blocked reports whether units cannot enter the cell.
func (c Cell) Blocked() bool { return c&cellBlocked != 0 }

// Height is the cell's height step; one step is 128 SimCoord of Z.
func (c Cell) Height() uint8 { return uint8(c &^ cellBlocked) }

// heightStep is the Z of one height step.
const heightStep protocol.SimCoord = 128

// Placement is one entity present when the match starts.
type Placement struct {
	Type  EntityType
	Owner protocol.PlayerID
	Pos   protocol.WorldPos // Z is ignored: it follows the terrain
}

// MapData is the static description of a match: the grid, the number of
// players and the entities placed at the start.
type MapData struct {
	Width, Height int    // cells
	Cells         []Cell // row-major, Width*Height
	Players       int    // 1..MaxPlayers
	Entities      []Placement
}

// Terrain is the immutable cell grid of a running match.
type Terrain struct {
	width, height int
	cells         []Cell
}

func newTerrain(m *MapData) (*Terrain, error) {
	if m.Width < 1 || m.Height < 1 || m.Width > MaxMapSize || m.Height > MaxMapSize {
		return nil, fmt.Errorf("%w: map size %dx%d", ErrInvalidMap, m.Width, m.Height)
	}
	if len(m.Cells) != m.Width*m.Height {
		return nil, fmt.Errorf("%w: %d cells for a %dx%d map", ErrInvalidMap, len(m.Cells), m.Width, m.Height)
	}
	return &Terrain{width: m.Width, height: m.Height, cells: append([]Cell(nil), m.Cells...)}, nil
}

// Width is the map width in cells.
func (t *Terrain) Width() int { return t.width }

// Height is the map height in cells.
func (t *Terrain) Height() int { return t.height }

// Cell returns the cell at (x, y); out-of-map cells read as blocked.
func (t *Terrain) Cell(x, y int) Cell {
	if !t.inside(x, y) {
		return cellBlocked
	}
	return t.cells[y*t.width+x]
}

// Passable reports whether units may stand on cell (x, y).
func (t *Terrain) Passable(x, y int) bool { return !t.Cell(x, y).Blocked() }

// CellOf returns the cell coordinates containing p.
func CellOf(p protocol.WorldPos) (x, y int) {
	return int(p.X / protocol.CellSize), int(p.Y / protocol.CellSize)
}

// CellCenter returns the world position of the centre of cell (x, y).
func CellCenter(x, y int) protocol.WorldPos {
	return protocol.WorldPos{
		X: protocol.SimCoord(x)*protocol.CellSize + protocol.CellSize/2,
		Y: protocol.SimCoord(y)*protocol.CellSize + protocol.CellSize/2,
	}
}

// Contains reports whether p lies on the map (Z is not checked).
func (t *Terrain) Contains(p protocol.WorldPos) bool {
	return p.X >= 0 && p.Y >= 0 &&
		p.X < protocol.SimCoord(t.width)*protocol.CellSize &&
		p.Y < protocol.SimCoord(t.height)*protocol.CellSize
}

// groundZ is the height of the terrain under p, which must be on the map.
func (t *Terrain) groundZ(p protocol.WorldPos) protocol.SimCoord {
	x, y := CellOf(p)
	return protocol.SimCoord(t.cells[y*t.width+x].Height()) * heightStep
}

func (t *Terrain) inside(x, y int) bool { return x >= 0 && y >= 0 && x < t.width && y < t.height }

func (t *Terrain) passableAt(p protocol.WorldPos) bool {
	if !t.Contains(p) {
		return false
	}
	x, y := CellOf(p)
	return !t.cells[y*t.width+x].Blocked()
}
