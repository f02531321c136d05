package room

import "encoding/base64"

// Bounds of a Map: what a model reports beyond them is left out, so a
// report's size stays bounded whatever the game.
const (
	// MaxMapCells bounds Width × Height of a map whose vision is
	// reported (a 256 × 256 map).
	MaxMapCells = 1 << 16
	// MaxMapEntities bounds the entities of a map.
	MaxMapEntities = 4096
)

// Map is a spectator's map of a room: the entities on a grid of cells,
// and what each player sees. The page draws it on a canvas, entities
// coloured by owner, with the union of the players' vision or one
// player's view.
type Map struct {
	// Width and Height are the map's size in cells.
	Width  int `json:"width"`
	Height int `json:"height"`
	// Entities are the room's entities, positions in cells.
	Entities []MapEntity `json:"entities"`
	// Vision is each player's sight, in player order.
	Vision []Vision `json:"vision"`
}

// MapEntity is an entity on a Map.
type MapEntity struct {
	ID    uint32  `json:"id"`
	Owner int     `json:"owner"` // 0: neutral
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Unit  bool    `json:"unit,omitempty"` // a unit, not a building or scenery
}

// Vision is what one player sees: the cells (a bitmap) and the entities.
type Vision struct {
	Player int `json:"player"`
	// Cells is the bitmap of the cells the player sees, row-major, bit
	// i of byte i/8 (least significant first) for cell i = y×Width+x,
	// base64 (standard encoding); empty when the map exceeds
	// MaxMapCells.
	Cells string `json:"cells"`
	// Visible are the ids of the entities the player sees.
	Visible []uint32 `json:"visible"`
}

// CellBitmap is Vision.Cells of a width × height map from sees, or ""
// beyond MaxMapCells.
func CellBitmap(width, height int, sees func(x, y int) bool) string {
	if width <= 0 || height <= 0 || width*height > MaxMapCells {
		return ""
	}
	bits := make([]byte, (width*height+7)/8)
	for y := range height {
		for x := range width {
			if i := y*width + x; sees(x, y) {
				bits[i/8] |= 1 << (i % 8)
			}
		}
	}
	return base64.StdEncoding.EncodeToString(bits)
}
