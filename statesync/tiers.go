package statesync

// Tier is how well the server verified a frame: the seed's graceful
// degradation tiers, one per frame.
type Tier uint8

// Tiers, best first.
const (
	// TierNormal: every partition came unasked from its assigned sender
	// and the assembled delta matches the majority hash.
	TierNormal Tier = 1
	// TierDegraded: some partition came from a backup candidate of the
	// assignment (the seed's verifier promoted to primary).
	TierDegraded Tier = 2
	// TierMinimal: some partition was asked of an ACTIVE client with the
	// majority hash that the assignment had not named.
	TierMinimal Tier = 3
	// TierSkip: the delta could not be assembled; the frame goes
	// unverified. Clients are unaffected; late joiners wait.
	TierSkip Tier = 4
)

// TierCounts counts frames per tier; index 0 is unused.
type TierCounts [5]uint64

// Add counts one frame at tier t.
func (c *TierCounts) Add(t Tier) {
	if t >= TierNormal && t <= TierSkip {
		c[t]++
	}
}
