package statesync

// Sender assignment without coordination: every client computes, from
// knowledge all of them share (the frame, the versioned list of ACTIVE
// clients, the versioned reliability scores, its own entity count), which
// clients send which partition of the frame's delta. The server computes
// the same and never says who sends. Everything is integer arithmetic, so
// every platform agrees (the seed's first draft used floats).

const (
	// EntitiesPerPartition is the seed's ~50 entities per partition.
	EntitiesPerPartition = 50
	// MinPartitions is the seed's floor on the partition count in rooms of
	// fewer than six clients.
	MinPartitions = 3
	// ScoreOne is a reliability score of 1.0 in 1.14 fixed point; a client
	// without a score has it.
	ScoreOne = 1 << 14
	// ScoreMax is the highest score, 2.0.
	ScoreMax = 2 * ScoreOne
)

// NumPartitions is min(ceil(entities/50), max(3, clients/2)), and at least
// one so that a frame of an empty world still has a partition whose
// arrival proves its sender is alive.
func NumPartitions(entities, clients int) int {
	n := min((entities+EntitiesPerPartition-1)/EntitiesPerPartition, max(MinPartitions, clients/2))
	return max(n, 1)
}

// AssignInput is what an assignment is computed from.
type AssignInput struct {
	Frame       uint32
	ListVersion uint32
	// Clients are the ACTIVE clients, strictly ascending.
	Clients []uint32
	// Score returns a client's reliability score; nil gives every client
	// ScoreOne.
	Score func(client uint32) uint16
	// Parts is the frame's partition count, NumPartitions of the frame's
	// entity count and len(Clients). Clients compute it from their state;
	// the server learns it from the partitions it receives.
	Parts int
	// Redundancy is how many candidates each partition has: the first
	// sends, the others are asked in order if it fails. At least 1.
	Redundancy int
}

// Assignment is who sends which partition of one frame.
type Assignment struct {
	Parts int
	// cands holds Redundancy candidates per partition, flattened:
	// partition p's are cands[p*r : p*r+r], primary first; a partition
	// may have fewer distinct candidates than r in small rooms (the rest
	// repeat earlier ones).
	cands []uint32
	r     int
}

// Candidates returns partition p's candidates, primary first. The slice
// aliases the assignment.
func (a *Assignment) Candidates(p int) []uint32 {
	if a.r == 0 {
		return nil
	}
	return a.cands[p*a.r : p*a.r+a.r]
}

// Primary is the client that sends partition p unasked, or false if the
// room has no ACTIVE client.
func (a *Assignment) Primary(p int) (uint32, bool) {
	if c := a.Candidates(p); len(c) > 0 {
		return c[0], true
	}
	return 0, false
}

// PrimaryOf appends to dst the partitions client sends unasked.
func (a *Assignment) PrimaryOf(dst []int, client uint32) []int {
	for p := range a.Parts {
		if c, ok := a.Primary(p); ok && c == client {
			dst = append(dst, p)
		}
	}
	return dst
}

// Assigner computes assignments, keeping its scratch space. The zero
// Assigner is ready.
type Assigner struct {
	tree   fenwick
	picked []uint32
}

// Assign computes the assignment of in. Identical inputs give identical
// assignments on every machine.
func (s *Assigner) Assign(in AssignInput) Assignment {
	r := max(in.Redundancy, 1)
	a := Assignment{Parts: in.Parts}
	if len(in.Clients) == 0 || in.Parts <= 0 {
		return a
	}
	need := min(len(in.Clients), a.Parts*r)
	s.picked = s.weightedPick(s.picked[:0], in, need)
	a.r = r
	a.cands = make([]uint32, a.Parts*r)
	// Partition p's k-th candidate is pick p + k*Parts, wrapping: the
	// primaries are the first Parts picks, as in the seed, and the
	// backups of one partition differ from each other when the room is
	// large enough.
	for p := range a.Parts {
		for k := range r {
			a.cands[p*r+k] = s.picked[(p+k*a.Parts)%need]
		}
	}
	return a
}

// weightedPick appends need distinct clients to dst, each drawn with
// probability proportional to its weight among those not yet drawn (the
// seed's weighted Fisher-Yates), in integers: a weight is score+1, so a
// score decayed to zero keeps a small chance, and the draw is a 64-bit
// random number modulo the total weight.
func (s *Assigner) weightedPick(dst []uint32, in AssignInput, need int) []uint32 {
	rng := newXorshift128(uint64(in.Frame)<<32 | uint64(in.ListVersion))
	s.tree.reset(len(in.Clients))
	for i, c := range in.Clients {
		w := uint64(ScoreOne)
		if in.Score != nil {
			w = uint64(in.Score(c))
		}
		s.tree.add(i, w+1)
	}
	for range need {
		i := s.tree.find(rng.next() % s.tree.total)
		dst = append(dst, in.Clients[i])
		s.tree.add(i, -s.tree.weight(i))
	}
	return dst
}

// xorshift128 is xorshift128+ seeded through SplitMix64: the seed's RNG,
// in 64-bit integers.
type xorshift128 struct{ s0, s1 uint64 }

func newXorshift128(seed uint64) xorshift128 {
	return xorshift128{s0: splitmix64(&seed), s1: splitmix64(&seed)}
}

func splitmix64(x *uint64) uint64 {
	*x += 0x9E3779B97F4A7C15
	z := *x
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

func (x *xorshift128) next() uint64 {
	s1, s0 := x.s0, x.s1
	x.s0 = s0
	s1 ^= s1 << 23
	x.s1 = s1 ^ s0 ^ s1>>17 ^ s0>>26
	return x.s1 + s0
}

// fenwick is a binary indexed tree of weights: add and find in O(log n),
// so drawing k of n clients costs O(k log n) rather than the seed's
// O(k n).
type fenwick struct {
	sum   []uint64 // 1-based partial sums
	w     []uint64
	total uint64
	step  int // highest power of two <= n
}

func (f *fenwick) reset(n int) {
	f.sum = append(f.sum[:0], make([]uint64, n+1)...)
	f.w = append(f.w[:0], make([]uint64, n)...)
	f.total = 0
	f.step = 1
	for f.step*2 <= n {
		f.step *= 2
	}
}

func (f *fenwick) weight(i int) uint64 { return f.w[i] }

// add adds d (two's complement for a decrease) to weight i.
func (f *fenwick) add(i int, d uint64) {
	f.w[i] += d
	f.total += d
	for j := i + 1; j < len(f.sum); j += j & -j {
		f.sum[j] += d
	}
}

// find returns the index i with prefix(i) <= v < prefix(i+1), where
// prefix(i) is the sum of the weights before i; v < total.
func (f *fenwick) find(v uint64) int {
	pos := 0
	for step := f.step; step > 0; step /= 2 {
		if next := pos + step; next < len(f.sum) && f.sum[next] <= v {
			pos = next
			v -= f.sum[next]
		}
	}
	return pos
}
