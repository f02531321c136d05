package relay

import (
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
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
		name := fmt.Sprintf("seed %d: %d players, %d leaves, minority %v", seed, n, leaves, minority)
		r := checkWalk(t, name, net, minority, truth)
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

// checkWalk runs net until the walk's report and checks it: the tick of
// the first sync check after the corruption (60), the sides, and for each
// honest minority player of truth exactly its corrupted leaves, each
// naming its one entity's field "v".
func checkWalk(t *testing.T, name string, net *simNet, minority []protocol.PlayerID, truth map[protocol.PlayerID][]int) DesyncReport {
	t.Helper()
	var got *DesyncDiagnosed
	net.onEvent = func(e Event) {
		if d, ok := e.(DesyncDiagnosed); ok && got == nil {
			got = &d
		}
	}
	net.runUntil(time.Minute, func() bool { return got != nil })
	if got == nil {
		t.Fatalf("%s: no report", name)
	}
	r := got.Report
	if r.Tick != 60 || !slices.Equal(r.Minority, minority) || len(r.Majority) != len(net.clients)-len(minority) {
		t.Fatalf("%s: tick %d, majority %v, minority %v", name, r.Tick, r.Majority, r.Minority)
	}
	for _, d := range r.Divergences {
		want, honest := truth[d.Player]
		if !honest {
			continue
		}
		var found []int
		for _, l := range d.Leaves {
			found = append(found, l.Leaf)
			if len(l.Differences) != 1 || l.Differences[0].Entity != uint32(10*l.Leaf+1) || l.Differences[0].Field != "v" {
				t.Errorf("%s: player %d leaf %d: differences %+v", name, d.Player, l.Leaf, l.Differences)
			}
		}
		if !slices.Equal(found, want) {
			t.Errorf("%s: player %d: leaves %v, want %v", name, d.Player, found, want)
		}
	}
	return r
}

// FuzzDesyncWalk: the fuzzer is a liar in the walk. Five players, three
// honest and in sync, player 4 honest with corrupted leaves, player 5
// corrupted too and answering as the input says: honestly, not at all,
// with other hashes, other nodes, other ticks, swapped children, entities
// changed, twice. Whatever it does, the walk ends in a report that finds
// exactly player 4's leaves and leaves no honest player out.
func FuzzDesyncWalk(f *testing.F) {
	f.Add([]byte{11, 3, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{32, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{1, 0, 9, 9, 9})
	f.Add([]byte{40, 39, 3, 3, 4, 4, 7, 2, 6, 1, 0, 5})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		leaves := 1 + int(in[0])%40
		ids := []protocol.PlayerID{1, 2, 3, 4, 5}
		net, err := newSimNet(Config{}, ids, uint64(len(in)))
		if err != nil {
			t.Fatal(err)
		}
		net.withTree(leaves)
		bad := int(in[1]) % leaves
		net.clients[3].corrupt(45, []int{bad}, 1)
		net.clients[4].corrupt(45, []int{(bad + 1) % leaves}, 2)
		script := in[2:]
		net.clients[4].tree.mutate = func(m msg.Message) msg.Message {
			if len(script) == 0 {
				return m
			}
			op := script[0]
			script = script[1:]
			return fuzzAnswer(m, op)
		}
		checkWalk(t, fmt.Sprintf("%x", in), net, []protocol.PlayerID{4, 5}, map[protocol.PlayerID][]int{4: {bad}})
	})
}

// fuzzAnswer rewrites a walk answer by op.
func fuzzAnswer(m msg.Message, op byte) msg.Message {
	h := uint64(op) * 0x9e3779b97f4a7c15
	switch m := m.(type) {
	case *msg.DesyncDebugReport:
		switch op % 5 {
		case 1:
			return nil
		case 2:
			m.StateHash ^= h
		case 3:
			if len(m.Children) == 2 {
				m.Children[0], m.Children[1] = m.Children[1], m.Children[0]
			}
		case 4:
			m.Leaves++
		}
	case *msg.MerkleNodes:
		switch op % 6 {
		case 1:
			return nil
		case 2:
			m.Left ^= h
		case 3:
			m.Left, m.Right = m.Right, m.Left
		case 4:
			m.Index ^= 1
		case 5:
			m.Tick++
		}
	case *msg.LeafEntities:
		switch op % 4 {
		case 1:
			return nil
		case 2:
			m.Entities = append(m.Entities, msg.LeafEntity{ID: 7, Values: []int64{1, 2}})
		case 3:
			m.Fields = []string{"w", "v"}
		}
	}
	return m
}
