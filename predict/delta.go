package predict

import (
	"bytes"
	"fmt"
)

// diffRecords appends to removed the ids of base missing from cur and to
// changed the records of cur that are new or differ from base. Both inputs
// are in ascending id order; so are the outputs.
func diffRecords(base, cur []Record, removed []EntityID, changed []Record) ([]EntityID, []Record) {
	i, j := 0, 0
	for i < len(base) || j < len(cur) {
		switch {
		case j == len(cur) || (i < len(base) && base[i].ID < cur[j].ID):
			removed = append(removed, base[i].ID)
			i++
		case i == len(base) || cur[j].ID < base[i].ID:
			changed = append(changed, cur[j])
			j++
		default:
			if !bytes.Equal(base[i].Data, cur[j].Data) {
				changed = append(changed, cur[j])
			}
			i++
			j++
		}
	}
	return removed, changed
}

// applyDelta appends to out the records of base without removed, with
// changed replacing or adding records. removed and changed must be in
// strictly ascending id order; a removed id base lacks is an error.
func applyDelta(base []Record, removed []EntityID, changed []Record, out []Record) ([]Record, error) {
	for k := 1; k < len(removed); k++ {
		if removed[k] <= removed[k-1] {
			return out, fmt.Errorf("%w: removed ids out of order", ErrMalformed)
		}
	}
	for k := 1; k < len(changed); k++ {
		if changed[k].ID <= changed[k-1].ID {
			return out, fmt.Errorf("%w: records out of order", ErrMalformed)
		}
	}
	r, c := 0, 0
	for _, b := range base {
		if r < len(removed) && removed[r] < b.ID {
			return out, fmt.Errorf("%w: removed id %d not in baseline", ErrMalformed, removed[r])
		}
		for c < len(changed) && changed[c].ID < b.ID {
			out = append(out, changed[c])
			c++
		}
		switch {
		case r < len(removed) && removed[r] == b.ID:
			r++
			if c < len(changed) && changed[c].ID == b.ID {
				return out, fmt.Errorf("%w: id %d removed and changed", ErrMalformed, b.ID)
			}
		case c < len(changed) && changed[c].ID == b.ID:
			out = append(out, changed[c])
			c++
		default:
			out = append(out, b)
		}
	}
	if r < len(removed) {
		return out, fmt.Errorf("%w: removed id %d not in baseline", ErrMalformed, removed[r])
	}
	return append(out, changed[c:]...), nil
}
