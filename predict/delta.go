package predict

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
)

// diffRecords appends to removed the ids of base missing from cur and to
// changed the records of cur that are new or differ from base: a new
// record whole, a changed one as its XOR patch against the baseline
// record (see xorPatch), written into arena. Both inputs are in ascending
// id order; so are the outputs.
func diffRecords(base, cur []Record, removed []EntityID, changed []Record, arena []byte) ([]EntityID, []Record, []byte) {
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
				start := len(arena)
				arena = appendXORPatch(arena, base[i].Data, cur[j].Data)
				changed = append(changed, Record{ID: cur[j].ID, Data: arena[start:len(arena):len(arena)]})
			}
			i++
			j++
		}
	}
	return removed, changed, arena
}

// applyDelta appends to out the records of base without removed, with
// changed patching (XOR) or adding records; patched records are written
// into arena, which must not be reallocated while out is in use (it is
// grown to fit first). removed and changed must be in strictly ascending
// id order; a removed id base lacks is an error.
func applyDelta(base []Record, removed []EntityID, changed []Record, out []Record, arena []byte) ([]Record, []byte, error) {
	need := 0
	for _, c := range changed {
		need += 8 * len(c.Data)
	}
	arena = slices.Grow(arena[:0], need)
	for k := 1; k < len(removed); k++ {
		if removed[k] <= removed[k-1] {
			return out, arena, fmt.Errorf("%w: removed ids out of order", ErrMalformed)
		}
	}
	for k := 1; k < len(changed); k++ {
		if changed[k].ID <= changed[k-1].ID {
			return out, arena, fmt.Errorf("%w: records out of order", ErrMalformed)
		}
	}
	r, c := 0, 0
	for _, b := range base {
		if r < len(removed) && removed[r] < b.ID {
			return out, arena, fmt.Errorf("%w: removed id %d not in baseline", ErrMalformed, removed[r])
		}
		for c < len(changed) && changed[c].ID < b.ID {
			out = append(out, changed[c])
			c++
		}
		switch {
		case r < len(removed) && removed[r] == b.ID:
			r++
			if c < len(changed) && changed[c].ID == b.ID {
				return out, arena, fmt.Errorf("%w: id %d removed and changed", ErrMalformed, b.ID)
			}
		case c < len(changed) && changed[c].ID == b.ID:
			start := len(arena)
			var ok bool
			if arena, ok = applyXORPatch(arena, b.Data, changed[c].Data); !ok {
				return out, arena, fmt.Errorf("%w: bad patch of record %d", ErrMalformed, b.ID)
			}
			out = append(out, Record{ID: b.ID, Data: arena[start:len(arena):len(arena)]})
			c++
		default:
			out = append(out, b)
		}
	}
	if r < len(removed) {
		return out, arena, fmt.Errorf("%w: removed id %d not in baseline", ErrMalformed, removed[r])
	}
	return append(out, changed[c:]...), arena, nil
}

// appendXORPatch appends the patch turning base into cur (same length):
// a bitmask of the bytes that differ (one bit per byte, ceil(n/8) bytes,
// least significant bit first) and the XOR of each differing byte. A
// moving entity changes a few bytes of its position, so its patch is a
// fraction of its record.
func appendXORPatch(dst, base, cur []byte) []byte {
	if len(base) != len(cur) {
		return append(append(dst, 0xFF), cur...) // unreachable for fixed-size records
	}
	m := len(dst)
	dst = slices.Grow(dst, (len(cur)+7)/8+len(cur))
	dst = dst[:m+(len(cur)+7)/8]
	clear(dst[m:])
	for k := 0; k < len(cur); k += 8 {
		if k+8 <= len(cur) && binary.LittleEndian.Uint64(base[k:]) == binary.LittleEndian.Uint64(cur[k:]) {
			continue
		}
		for j := k; j < min(k+8, len(cur)); j++ {
			if x := base[j] ^ cur[j]; x != 0 {
				dst[m+j/8] |= 1 << (j % 8)
				dst = append(dst, x)
			}
		}
	}
	return dst
}

// applyXORPatch appends base patched by p to dst; ok is false if p does
// not fit base or is not the one patch appendXORPatch writes (a byte
// marked changed with an XOR of zero, or no byte changed).
func applyXORPatch(dst, base, p []byte) ([]byte, bool) {
	n := (len(base) + 7) / 8
	if len(p) < n {
		return dst, false
	}
	mask, xs := p[:n], p[n:]
	start := len(dst)
	dst = append(dst, base...)
	for k := range base {
		if mask[k/8]&(1<<(k%8)) == 0 {
			continue
		}
		if len(xs) == 0 || xs[0] == 0 {
			return dst[:start], false
		}
		dst[start+k] ^= xs[0]
		xs = xs[1:]
	}
	if len(xs) != 0 || len(p) == n || (len(base)%8 != 0 && mask[n-1]>>(len(base)%8) != 0) {
		return dst[:start], false
	}
	return dst, true
}
