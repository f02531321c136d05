package sim

// rng is the simulation's deterministic random number generator: a 64-bit
// PCG-style LCG with an xorshift-multiply output. Its whole state is one
// uint64, hashed and snapshotted with the rest of the state. Only the
// simulation's rules advance it; bots, renderers and anything cosmetic use
// their own generators, so they can never desynchronise the match.
type rng struct{ state uint64 }

func newRNG(seed uint64) rng {
	r := rng{state: seed ^ 0x9e3779b97f4a7c15}
	r.next()
	return r
}

func (r *rng) next() uint64 {
	r.state = r.state*6364136223846793005 + 1442695040888963407
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a value in [0, n); n must be positive. The modulo bias is
// negligible for the small n the rules use and, above all, deterministic.
func (r *rng) intn(n uint32) uint32 { return uint32(r.next() % uint64(n)) }
