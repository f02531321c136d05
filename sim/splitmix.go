package sim

// SplitMix64 is a small deterministic random number generator (SplitMix64)
// for everything outside the rules: match generators, bots, cosmetic
// effects. It never touches the simulation's own generator, so using it can
// never desynchronise a match. The zero value is usable; S is its whole
// state.
type SplitMix64 struct{ S uint64 }

// Next returns the next 64 random bits.
func (r *SplitMix64) Next() uint64 {
	r.S += 0x9e3779b97f4a7c15
	z := r.S
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Intn returns a value in [0, n); n must be positive.
func (r *SplitMix64) Intn(n uint64) uint64 { return r.Next() % n }
