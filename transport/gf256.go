package transport

// Arithmetic in GF(2^8) with the polynomial x^8+x^4+x^3+x^2+1 (0x11D),
// for the Reed–Solomon parity of small urgent messages (parity.go).
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

// cauchy is the coefficient of data symbol i in parity row j: 1/(x_j+y_i)
// with x_j = 16+j and y_i = i, so every square submatrix is invertible and
// any e missing symbols are recovered from any e parity rows (an MDS code).
func cauchy(j, i int) byte { return gfInv(byte(parityMaxK+j) ^ byte(i)) }

// gfSolve solves a·x = b in place for the e×e matrix a (rows of length e)
// and right-hand sides b (one byte vector per row), leaving x in b. It
// reports false if a is singular (never for Cauchy submatrices).
func gfSolve(a [][]byte, b [][]byte) bool {
	e := len(a)
	for col := range e {
		p := -1
		for r := col; r < e; r++ {
			if a[r][col] != 0 {
				p = r
				break
			}
		}
		if p < 0 {
			return false
		}
		a[col], a[p] = a[p], a[col]
		b[col], b[p] = b[p], b[col]
		inv := gfInv(a[col][col])
		for c := range e {
			a[col][c] = gfMul(a[col][c], inv)
		}
		scale(b[col], inv)
		for r := range e {
			if r == col || a[r][col] == 0 {
				continue
			}
			f := a[r][col]
			for c := range e {
				a[r][c] ^= gfMul(f, a[col][c])
			}
			gfMulAdd(b[r], b[col], f)
		}
	}
	return true
}

func scale(v []byte, c byte) {
	for i := range v {
		v[i] = gfMul(v[i], c)
	}
}
