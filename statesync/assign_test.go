package statesync_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/msg"
)

func TestNumPartitions(t *testing.T) {
	for _, c := range []struct{ entities, clients, want int }{
		{0, 100, 1}, {1, 100, 1}, {50, 100, 1}, {51, 100, 2}, {300, 100, 6},
		{10000, 100, 50}, {10000, 4, 3}, {10000, 1000, 200}, {100000, 1000, 500},
	} {
		if got := statesync.NumPartitions(c.entities, c.clients); got != c.want {
			t.Errorf("NumPartitions(%d, %d) = %d, want %d", c.entities, c.clients, got, c.want)
		}
	}
}

// randomRoster is a random sorted client list and score table.
func randomRoster(rng *rand.Rand) ([]uint32, []msg.Score) {
	n := 1 + rng.IntN(300)
	set := map[uint32]bool{}
	for len(set) < n {
		set[rng.Uint32N(1<<20)] = true
	}
	var clients []uint32
	for c := range set {
		clients = append(clients, c)
	}
	slices.Sort(clients)
	var scores []msg.Score
	for _, c := range clients {
		if rng.IntN(2) == 0 {
			scores = append(scores, msg.Score{Client: c, Score: uint16(rng.IntN(statesync.ScoreMax + 1))})
		}
	}
	return clients, scores
}

// TestAssignmentAgreesAcrossClients: every "client" receives the roster as
// encoded CLIENT_LIST_UPDATE and RELIABILITY_UPDATE messages, decodes them
// and computes the assignment with its own Assigner; all agree, and each
// client's view of its own partitions matches the server's.
func TestAssignmentAgreesAcrossClients(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		clients, scores := randomRoster(rng)
		list, _ := msg.Append(nil, &msg.ClientListUpdate{Version: rng.Uint32(), Clients: clients})
		rel, _ := msg.Append(nil, &msg.ReliabilityUpdate{Version: 1, Scores: scores})
		frame, entities, redundancy := rng.Uint32(), rng.IntN(20000), 1+rng.IntN(5)
		var want statesync.Assignment
		var server statesync.Assigner
		for k := range 8 {
			lm, err := msg.Parse(list)
			if err != nil {
				t.Fatal(err)
			}
			rm, _ := msg.Parse(rel)
			l, r := lm.(*msg.ClientListUpdate), rm.(*msg.ReliabilityUpdate)
			var a statesync.Assigner
			in := statesync.AssignInput{Frame: frame, ListVersion: l.Version, Clients: l.Clients, Parts: statesync.NumPartitions(entities, len(l.Clients)),
				Redundancy: redundancy, Score: func(c uint32) uint16 { return statesync.ScoreIn(r.Scores, c) }}
			got := a.Assign(in)
			if k == 0 {
				want = server.Assign(in)
			}
			if got.Parts != want.Parts {
				t.Fatalf("trial %d: client %d computes %d partitions, server %d", trial, k, got.Parts, want.Parts)
			}
			for p := range got.Parts {
				if !slices.Equal(got.Candidates(p), want.Candidates(p)) {
					t.Fatalf("trial %d client %d partition %d: %v, server %v", trial, k, p, got.Candidates(p), want.Candidates(p))
				}
			}
			me := l.Clients[rng.IntN(len(l.Clients))]
			var mine []int
			for p := range want.Parts {
				if c, _ := want.Primary(p); c == me {
					mine = append(mine, p)
				}
			}
			if g := got.PrimaryOf(nil, me); !slices.Equal(g, mine) {
				t.Fatalf("trial %d: client %d's own partitions %v, server's view %v", trial, me, g, mine)
			}
		}
	}
}

// TestClientAndServerAssignmentsAgree: a client draws its assignment as a
// client does (the zero Redundancy of its core: one candidate per
// partition, the partition count of the Tick), the server with the
// redundancy of the moment (3 to 5); over random rosters, scores, list
// versions, frames and partition counts, the primaries are the same,
// every client's own partitions are what the server expects of it, and
// the server's backups are distinct from the primary whenever the room
// is large enough.
func TestClientAndServerAssignmentsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		clients, scores := randomRoster(rng)
		version, frame := rng.Uint32(), rng.Uint32()
		parts := statesync.NumPartitions(rng.IntN(30000), len(clients))
		score := func(c uint32) uint16 { return statesync.ScoreIn(scores, c) }
		var client, server statesync.Assigner
		mine := client.Assign(statesync.AssignInput{Frame: frame, ListVersion: version, Clients: clients, Score: score, Parts: parts})
		theirs := server.Assign(statesync.AssignInput{Frame: frame, ListVersion: version, Clients: clients, Score: score, Parts: parts,
			Redundancy: statesync.BaseRedundancy + rng.IntN(statesync.MaxRedundancy-statesync.BaseRedundancy+1)})
		for p := range parts {
			c, _ := mine.Primary(p)
			s, _ := theirs.Primary(p)
			if c != s {
				t.Fatalf("trial %d (%d clients, %d parts): partition %d's primary is %d for the client, %d for the server", trial, len(clients), parts, p, c, s)
			}
			if cands := theirs.Candidates(p); len(clients) > parts && cands[1] == cands[0] {
				t.Fatalf("trial %d: partition %d's first backup is its primary", trial, p)
			}
		}
		for _, id := range clients {
			if !slices.Equal(mine.PrimaryOf(nil, id), theirs.PrimaryOf(nil, id)) {
				t.Fatalf("trial %d: client %d sends %v, the server expects %v", trial, id, mine.PrimaryOf(nil, id), theirs.PrimaryOf(nil, id))
			}
		}
	}
}

// TestAssignmentVersionChangesSeed: the same frame with another client
// list version draws differently (the RNG is seeded from both).
func TestAssignmentVersionChangesSeed(t *testing.T) {
	clients := make([]uint32, 100)
	for i := range clients {
		clients[i] = uint32(i + 1)
	}
	var s statesync.Assigner
	a := s.Assign(statesync.AssignInput{Frame: 7, ListVersion: 1, Clients: clients, Parts: statesync.NumPartitions(1000, 100)})
	b := s.Assign(statesync.AssignInput{Frame: 7, ListVersion: 2, Clients: clients, Parts: statesync.NumPartitions(1000, 100)})
	same := 0
	for p := range a.Parts {
		x, _ := a.Primary(p)
		y, _ := b.Primary(p)
		if x == y {
			same++
		}
	}
	if same == a.Parts {
		t.Fatal("list version does not change the draw")
	}
}

// TestAssignmentFavoursReliable: over many frames a client with score
// 2.0 is drawn as primary more often than one decayed to 0.2.
func TestAssignmentFavoursReliable(t *testing.T) {
	clients := make([]uint32, 20)
	for i := range clients {
		clients[i] = uint32(i + 1)
	}
	score := func(c uint32) uint16 {
		switch c {
		case 1:
			return statesync.ScoreMax
		case 2:
			return statesync.ScoreOne / 5
		}
		return statesync.ScoreOne
	}
	var s statesync.Assigner
	count := map[uint32]int{}
	for f := range uint32(2000) {
		a := s.Assign(statesync.AssignInput{Frame: f, ListVersion: 1, Clients: clients, Parts: statesync.NumPartitions(150, 20), Score: score})
		for p := range a.Parts {
			c, _ := a.Primary(p)
			count[c]++
		}
	}
	if !(count[1] > count[3] && count[3] > count[2]) {
		t.Fatalf("picks: reliable %d, average %d, unreliable %d", count[1], count[3], count[2])
	}
}

// TestAssignmentPrimariesDistinct: primaries of one frame are distinct
// clients while the room has enough of them.
func TestAssignmentPrimariesDistinct(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		clients, _ := randomRoster(rng)
		var s statesync.Assigner
		a := s.Assign(statesync.AssignInput{Frame: rng.Uint32(), Clients: clients, Parts: statesync.NumPartitions(rng.IntN(30000), len(clients)), Redundancy: 3})
		seen := map[uint32]bool{}
		for p := range a.Parts {
			c, _ := a.Primary(p)
			if seen[c] && a.Parts <= len(clients) {
				t.Fatalf("client %d primary twice among %d partitions, %d clients", c, a.Parts, len(clients))
			}
			seen[c] = true
		}
	}
}
