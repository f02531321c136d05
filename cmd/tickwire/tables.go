package main

import (
	"cmp"
	"slices"
)

// inSeatOrder returns the players of a summary table sorted by their
// seat (id, as id reads it), spectators (id 0) last: bots join side by
// side, so their reports come in bot order, not seat order. The JSON
// keeps the reports as they are.
func inSeatOrder[T any](players []T, id func(*T) int) []T {
	sorted := slices.Clone(players)
	slices.SortStableFunc(sorted, func(a, b T) int {
		x, y := id(&a), id(&b)
		return cmp.Or(cmp.Compare(boolInt(x == 0), boolInt(y == 0)), cmp.Compare(x, y))
	})
	return sorted
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
