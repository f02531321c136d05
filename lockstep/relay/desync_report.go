package relay

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// DesyncReport is the outcome of a desync walk: the tick, the players on
// each side of the split, and for each minority player the leaves of its
// state tree that differ from the majority's with the entities and
// fields that differ. Its JSON form is the document the relay writes to
// desync_report_{seed}_{tick}.json and sends to every client; the JSON
// names are part of the interface.
type DesyncReport struct {
	Seed       uint64 `json:"seed"`
	Tick       uint64 `json:"tick"`
	DebugLevel uint8  `json:"debug_level"`
	// MajorityHash is the state hash most players reported; Tie is set
	// when another hash was reported by as many (the majority is then
	// the side of the lowest player id).
	MajorityHash string              `json:"majority_hash"`
	Tie          bool                `json:"tie"`
	Majority     []protocol.PlayerID `json:"majority"`
	Minority     []protocol.PlayerID `json:"minority"`
	Players      []ReportPlayer      `json:"players"`
	// Divergences has one entry per minority player.
	Divergences []Divergence `json:"divergences"`
	// Cost is what the walk took (BENCHMARKS.md: time to localise).
	Cost WalkCost `json:"cost"`
	// Skipped counts mismatches detected while this walk ran, not walked.
	Skipped int `json:"skipped,omitempty"`
}

// ReportPlayer is one player's answer to the DesyncDebugRequest.
type ReportPlayer struct {
	ID        protocol.PlayerID `json:"id"`
	Side      string            `json:"side"` // "majority" or "minority"
	StateHash string            `json:"state_hash"`
	RNG       string            `json:"rng,omitempty"`
	// LeftOut says why the walk stopped listening to the player: it was
	// "silent" past the walk's timeout, or its answers were
	// "inconsistent: …" with what it claimed before.
	LeftOut string `json:"left_out,omitempty"`
}

// Divergence is where one minority player's state differs.
type Divergence struct {
	Player protocol.PlayerID `json:"player"`
	Leaves []LeafDiff        `json:"leaves"`
	// Truncated: more leaves differ than the walk follows (8).
	Truncated bool `json:"truncated,omitempty"`
}

// LeafDiff is one differing leaf (an entity group) and its differences:
// the first maxLeafDifferences (256), and in More how many more there are.
type LeafDiff struct {
	Leaf        int         `json:"leaf"`
	Label       string      `json:"label"`
	Differences []FieldDiff `json:"differences"`
	More        int         `json:"more,omitempty"`
}

// maxLeafDifferences bounds the differences a report lists per leaf, so
// that eight leaves of thousands of entities stay a readable document
// within msg.MaxReportJSON.
const maxLeafDifferences = 256

// FieldDiff is one field of one entity whose value differs: Majority is
// the majority's value, Player the minority player's. An entity only one
// side has is reported once with Field "present" (1 or 0).
type FieldDiff struct {
	Entity   uint32 `json:"entity"`
	Field    string `json:"field"`
	Majority int64  `json:"majority"`
	Player   int64  `json:"player"`
}

// JSON is the report's document, indented.
func (r *DesyncReport) JSON() []byte {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil { // cannot happen: plain values only
		panic(err)
	}
	return append(b, '\n')
}

// FileName is the report's file name, desync_report_{seed}_{tick}.json.
func (r *DesyncReport) FileName() string {
	return fmt.Sprintf("desync_report_%d_%d.json", r.Seed, r.Tick)
}

// report builds the walk's outcome.
func (w *desyncWalk) report(seed uint64) DesyncReport {
	r := DesyncReport{Seed: seed, Tick: w.tick, DebugLevel: w.level, MajorityHash: hex(w.majority), Tie: w.tie,
		Majority: []protocol.PlayerID{}, Minority: []protocol.PlayerID{}, Divergences: []Divergence{}, Cost: w.cost, Skipped: w.skipped}
	for _, x := range w.players {
		p := ReportPlayer{ID: x.id, Side: "majority", StateHash: hex(x.hash), LeftOut: x.out}
		if x.reported {
			p.RNG = hex(x.rng)
		}
		if x.minority {
			p.Side = "minority"
			r.Minority = append(r.Minority, x.id)
			r.Divergences = append(r.Divergences, w.divergence(x))
		} else {
			r.Majority = append(r.Majority, x.id)
		}
		r.Players = append(r.Players, p)
	}
	return r
}

// divergence compares the leaves x's walk ended at with the majority's.
func (w *desyncWalk) divergence(x *walker) Divergence {
	d := Divergence{Player: x.id, Leaves: []LeafDiff{}, Truncated: x.cut}
	for _, n := range x.frontier {
		if n.depth != w.depth {
			continue // the walk stopped above the leaves
		}
		mine := x.got[n.index]
		ref := w.majorityLeaf(n.index)
		l := LeafDiff{Leaf: n.index, Differences: []FieldDiff{}}
		switch {
		case ref != nil:
			l.Label = ref.Label
		case mine != nil:
			l.Label = mine.Label
		}
		if ref != nil && mine != nil {
			l.Differences = diffLeaf(ref, mine)
			if n := len(l.Differences); n > maxLeafDifferences {
				l.Differences, l.More = l.Differences[:maxLeafDifferences], n-maxLeafDifferences
			}
		}
		d.Leaves = append(d.Leaves, l)
	}
	return d
}

// majorityLeaf is the leaf's entities as most majority players sent them.
func (w *desyncWalk) majorityLeaf(i int) *msg.LeafEntities {
	var best *msg.LeafEntities
	most := 0
	for _, x := range w.players {
		l := x.got[i]
		if x.minority || l == nil {
			continue
		}
		n := 0
		for _, y := range w.players {
			if !y.minority && y.got[i] != nil && sameLeaf(l, y.got[i]) {
				n++
			}
		}
		if n > most {
			best, most = l, n
		}
	}
	return best
}

func sameLeaf(a, b *msg.LeafEntities) bool {
	return a.Label == b.Label && slices.Equal(a.Fields, b.Fields) && slices.EqualFunc(a.Entities, b.Entities,
		func(x, y msg.LeafEntity) bool { return x.ID == y.ID && slices.Equal(x.Values, y.Values) })
}

// diffLeaf lists the fields whose values differ between the majority's
// leaf and a player's, entity by entity in id order; fields are matched
// by name.
func diffLeaf(ref, mine *msg.LeafEntities) []FieldDiff {
	out := []FieldDiff{}
	byID := func(l *msg.LeafEntities) map[uint32]msg.LeafEntity {
		m := make(map[uint32]msg.LeafEntity, len(l.Entities))
		for _, e := range l.Entities {
			m[e.ID] = e
		}
		return m
	}
	a, b := byID(ref), byID(mine)
	ids := make([]uint32, 0, len(a)+len(b))
	for id := range a {
		ids = append(ids, id)
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		ea, okA := a[id]
		eb, okB := b[id]
		if !okA || !okB {
			out = append(out, FieldDiff{Entity: id, Field: "present", Majority: b2i(okA), Player: b2i(okB)})
			continue
		}
		for k, f := range ref.Fields {
			j := slices.Index(mine.Fields, f)
			if j < 0 || k >= len(ea.Values) || j >= len(eb.Values) {
				continue
			}
			if ea.Values[k] != eb.Values[j] {
				out = append(out, FieldDiff{Entity: id, Field: f, Majority: ea.Values[k], Player: eb.Values[j]})
			}
		}
	}
	return out
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func hex(h uint64) string { return fmt.Sprintf("%016x", h) }
