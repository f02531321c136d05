package relay

import (
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/protocol"
)

// TestDesyncWalkAgainstLiars sweeps matches of 3 to 8 players over state
// trees of 1 to 40 leaves where an honest majority agrees and every other
// player's state differs in 1 to 3 leaves; among those, and in the
// majority, some players lie in the walk (claim the majority's hashes on
// the way down, swap every pair of children, or fall silent). Against a
// brute-force comparison of the trees, the report must name every honest
// minority player's differing leaves exactly (the entity and field
// inside), put every player on its side, and leave every liar's lies out
// of the honest players' findings.
func TestDesyncWalkAgainstLiars(t *testing.T) {
	lies := []string{"majority", "flip", "silent"}
	for seed := range uint64(80) {
		rng := mrand.New(mrand.NewPCG(seed, 19))
		n, leaves := 3+rng.IntN(6), 1+rng.IntN(40)
		ids := make([]protocol.PlayerID, n)
		for i := range ids {
			ids[i] = protocol.PlayerID(i + 1)
		}
		net, err := newSimNet(Config{}, ids, seed)
		if err != nil {
			t.Fatal(err)
		}
		net.withTree(leaves)
		honest := n/2 + 1 // agree, and answer honestly but for one liar at most
		order := rng.Perm(n)
		truth := map[protocol.PlayerID][]int{}
		var minority []protocol.PlayerID
		for k, i := range order {
			c := net.clients[i]
			switch {
			case k == 0 && honest > 1 && rng.IntN(2) == 0:
				c.tree.lie = lies[1+rng.IntN(2)] // a majority liar: flip or silent
			case k >= honest:
				ls := rng.Perm(leaves)[:1+rng.IntN(min(3, leaves))]
				slices.Sort(ls)
				c.corrupt(45, ls, 1+rng.Int64N(5))
				minority = append(minority, c.id)
				if rng.IntN(3) == 0 {
					c.tree.lie = lies[rng.IntN(3)]
				} else {
					truth[c.id] = ls
				}
			}
		}
		slices.Sort(minority)
		var got *DesyncDiagnosed
		net.onEvent = func(e Event) {
			if d, ok := e.(DesyncDiagnosed); ok && got == nil {
				got = &d
			}
		}
		net.runUntil(time.Minute, func() bool { return got != nil })
		name := fmt.Sprintf("seed %d: %d players, %d leaves, minority %v", seed, n, leaves, minority)
		if got == nil {
			t.Fatalf("%s: no report", name)
		}
		r := got.Report
		if r.Tick != 60 || !slices.Equal(r.Minority, minority) || len(r.Majority) != n-len(minority) {
			t.Fatalf("%s: tick %d, majority %v, minority %v", name, r.Tick, r.Majority, r.Minority)
		}
		for _, d := range r.Divergences {
			want, honestPlayer := truth[d.Player]
			if !honestPlayer {
				continue
			}
			var leavesFound []int
			for _, l := range d.Leaves {
				leavesFound = append(leavesFound, l.Leaf)
				if len(l.Differences) != 1 || l.Differences[0].Entity != uint32(10*l.Leaf+1) || l.Differences[0].Field != "v" {
					t.Errorf("%s: player %d leaf %d: differences %+v", name, d.Player, l.Leaf, l.Differences)
				}
			}
			if !slices.Equal(leavesFound, want) {
				t.Errorf("%s: player %d: leaves %v, want %v", name, d.Player, leavesFound, want)
			}
		}
		for _, p := range r.Players {
			c := net.client(p.ID)
			if c.tree.lie != "" && p.LeftOut == "" {
				t.Errorf("%s: liar %d (%s) not left out", name, p.ID, c.tree.lie)
			}
			if c.tree.lie == "" && p.LeftOut != "" {
				t.Errorf("%s: honest player %d left out: %s", name, p.ID, p.LeftOut)
			}
		}
	}
}
