package transport

// Arithmetic in GF(2^8) with the polynomial x^8+x^4+x^3+x^2+1 (0x11D),
// for the repairs of small urgent messages (parity.go).
// Addition is XOR; the tables are computed once and only read.

type gfTables struct {
	exp [512]byte
	log [256]byte
}

var gf = newGFTables()

func newGFTables() *gfTables {
	t := &gfTables{}
	x := 1
	for i := range 255 {
		t.exp[i] = byte(x)
		t.log[x] = byte(i)
		x <<= 1
		if x&0x100 != 0 {
			x ^= 0x11D
		}
	}
	for i := 255; i < len(t.exp); i++ {
		t.exp[i] = t.exp[i-255]
	}
	return t
}

func gfMul(a, b byte) byte {
	if a == 0 || b == 0 {
		return 0
	}
	return gf.exp[int(gf.log[a])+int(gf.log[b])]
}

// gfInv returns 1/a; a must not be zero.
func gfInv(a byte) byte { return gf.exp[255-int(gf.log[a])] }

// gfMulAdd adds c·src to dst, byte by byte (len(src) ≤ len(dst)).
func gfMulAdd(dst, src []byte, c byte) {
	if c == 0 {
		return
	}
	lc := int(gf.log[c])
	for i, v := range src {
		if v != 0 {
			dst[i] ^= gf.exp[lc+int(gf.log[v])]
		}
	}
}

// gfEliminate brings the rows×e matrix a to reduced row echelon form in
// place and returns, for each of its e columns (unknowns), the
// combination of the original rows that isolates it (one coefficient per
// row), or nil where the rows do not determine it: an unknown is
// determined when its pivot row has no other nonzero entry.
func gfEliminate(a [][]byte) [][]byte {
	rows := len(a)
	if rows == 0 {
		return nil
	}
	e := len(a[0])
	t := make([][]byte, rows) // the operations applied, starting from identity
	for r := range t {
		t[r] = make([]byte, rows)
		t[r][r] = 1
	}
	pivotRow := make([]int, e)
	row := 0
	for col := range e {
		pivotRow[col] = -1
		p := -1
		for r := row; r < rows; r++ {
			if a[r][col] != 0 {
				p = r
				break
			}
		}
		if p < 0 {
			continue
		}
		a[row], a[p] = a[p], a[row]
		t[row], t[p] = t[p], t[row]
		inv := gfInv(a[row][col])
		scale(a[row], inv)
		scale(t[row], inv)
		for r := range rows {
			if r == row || a[r][col] == 0 {
				continue
			}
			f := a[r][col]
			gfMulAdd(a[r], a[row], f)
			gfMulAdd(t[r], t[row], f)
		}
		pivotRow[col] = row
		row++
	}
	comb := make([][]byte, e)
	for col, r := range pivotRow {
		if r < 0 {
			continue
		}
		alone := true
		for c, v := range a[r] {
			if c != col && v != 0 {
				alone = false
				break
			}
		}
		if alone {
			comb[col] = t[r]
		}
	}
	return comb
}

func scale(v []byte, c byte) {
	for i := range v {
		v[i] = gfMul(v[i], c)
	}
}
