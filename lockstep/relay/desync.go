package relay

import (
	"fmt"
	"slices"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/merkle"
	"github.com/tickwire/tickwire/protocol"
)

// Defaults of the desync walk.
const (
	// DefaultDesyncTimeout bounds each round of the walk: a client that
	// has not answered by then is left out as silent.
	DefaultDesyncTimeout = 5 * time.Second
	// maxWalkLeaves bounds the differing leaves followed per player.
	maxWalkLeaves = 8
	// maxLeafEntities bounds the entities of a leaf the relay keeps.
	maxLeafEntities = 1 << 16
)

// node is a node of a state tree: depth 0 is the root.
type node struct{ depth, index int }

// walkStage is what the walk waits for.
type walkStage uint8

const (
	stageReports walkStage = iota // DesyncDebugReports
	stageNodes                    // MerkleNodes
	stageLeaves                   // LeafEntities
)

// desyncWalk localises one desync: started by a sync-hash mismatch, it
// asks every client for its DesyncDebugReport, then walks each minority
// player's tree down against the majority's, two hashes a node, to the
// leaves where they differ, collects those leaves' entities from every
// client and reports what differs. One walk runs at a time; a mismatch
// during a walk is detected and reported (DesyncDetected) but not walked.
//
// Every answer is checked against what its sender already claimed: a
// node's children must hash (merkle.Pair) to the node. A client whose
// answer does not is left out as inconsistent, so a liar in the minority
// that claims the majority's children on the way down is caught at once,
// and one that answers consistently can only lead the walk down its own
// subtree (each minority player has its own walk) to leaves where its
// claimed state does differ. A liar in the majority is outvoted, or, if
// it is the reference's only voice, caught by the same check.
type desyncWalk struct {
	active   bool
	stage    walkStage
	tick     uint64
	level    uint8
	deadline time.Duration
	started  time.Duration
	players  []*walker
	majority uint64 // the reference root: the most common hash
	tie      bool   // no hash was held by more players than every other
	depth    int    // depth of the leaves of the majority's tree
	leaves   int    // leaves of the majority's tree
	ref      map[node]uint64
	cost     WalkCost
	skipped  int                 // mismatches detected during the walk, not walked
	split    []protocol.PlayerID // the minority, in player order
}

// WalkCost is what localising a desync took: round trips of the walk
// (the DesyncDebugRequest's included), messages both ways, node hashes
// carried (the root's children in each report, two per MerkleNodes),
// their encoded bytes, and the relay clock's time from the mismatch to
// the report.
type WalkCost struct {
	RoundTrips int     `json:"round_trips"`
	Messages   int     `json:"messages"`
	Hashes     int     `json:"hashes"`
	Bytes      int     `json:"bytes"`
	ElapsedMs  float64 `json:"elapsed_ms"`
}

// walker is one player's part in the walk.
type walker struct {
	id       protocol.PlayerID
	index    int
	hash     uint64 // its SyncHash for the tick
	minority bool
	reported bool
	rng      uint64
	leaves   int    // leaves of its tree
	out      string // why it is left out ("silent", "inconsistent: ..."), "" if not
	claims   map[node]uint64
	frontier []node // differing nodes of the current depth (minority)
	waiting  []node // queries not yet answered
	votes    map[node][2]uint64
	got      map[int]*msg.LeafEntities
	cut      bool // more than maxWalkLeaves leaves differ
}

func (w *walker) in() bool { return w.out == "" }

// startWalk opens a walk for the mismatching check e, unless one runs
// (the mismatch is then counted in the next report's Skipped) or the
// last walk already explained the same split: a diverged client stays
// diverged, and each sync check would otherwise walk it again. So a match
// sees at most one walk per new minority.
func (c *Core) startWalk(e *syncEntry) {
	if c.walk.active {
		c.walk.skipped++
		return
	}
	w := desyncWalk{active: true, tick: e.tick, level: c.cfg.DebugLevel, deadline: c.now + c.cfg.DesyncTimeout, started: c.now,
		ref: map[node]uint64{}, skipped: c.walk.skipped}
	count := map[uint64]int{}
	c.active(func(p *player) {
		h := e.hashes[p.index]
		w.players = append(w.players, &walker{id: p.state.ID, index: p.index, hash: h,
			claims: map[node]uint64{{0, 0}: h}, votes: map[node][2]uint64{}})
		count[h]++
	})
	// The majority is the most common hash; among equals, the one the
	// lowest player id holds.
	best := -1
	for _, p := range w.players {
		if n := count[p.hash]; n > best {
			best, w.majority = n, p.hash
		}
	}
	for _, p := range w.players {
		if p.minority = p.hash != w.majority; p.minority {
			w.split = append(w.split, p.id)
		}
		w.tie = w.tie || (p.minority && count[p.hash] == best)
	}
	if slices.Equal(w.split, c.walk.split) {
		return
	}
	c.walk = w
	c.walk.ref[node{0, 0}] = w.majority
	req := &msg.DesyncDebugRequest{Tick: e.tick, Level: c.cfg.DebugLevel}
	c.broadcast(req)
	c.walk.cost.RoundTrips++
	c.walk.charge(req, len(w.players))
}

// charge counts n copies of m in the walk's cost.
func (w *desyncWalk) charge(m msg.Message, n int) {
	b, _ := msg.Codec{}.Append(nil, m)
	w.cost.Messages += n
	w.cost.Bytes += n * len(b)
	switch m := m.(type) {
	case *msg.DesyncDebugReport:
		w.cost.Hashes += n * len(m.Children)
	case *msg.MerkleNodes:
		w.cost.Hashes += 2 * n
	}
}

func (w *desyncWalk) walker(p *player) *walker {
	for _, x := range w.players {
		if x.index == p.index {
			return x
		}
	}
	return nil
}

// onWalkAnswer takes a client's answer in the walk.
func (c *Core) onWalkAnswer(p *player, m msg.Message, tick uint64) error {
	w := &c.walk
	x := w.walker(p)
	if !w.active || x == nil || tick != w.tick {
		return fmt.Errorf("%w: no desync walk asks player %d about tick %d", ErrTick, p.state.ID, tick)
	}
	if !x.in() {
		return nil // left out already: its late answers change nothing
	}
	w.charge(m, 1)
	var err error
	switch m := m.(type) {
	case *msg.DesyncDebugReport:
		err = w.onReport(x, m)
	case *msg.MerkleNodes:
		err = w.onNodes(x, m)
	case *msg.LeafEntities:
		err = w.onLeaf(x, m)
	}
	if err != nil {
		return err
	}
	c.walkProgress()
	return nil
}

func (w *desyncWalk) onReport(x *walker, m *msg.DesyncDebugReport) error {
	if w.stage != stageReports || x.reported {
		return fmt.Errorf("%w: desync report", ErrDuplicate)
	}
	x.reported, x.rng, x.leaves = true, m.RNG, int(m.Leaves)
	switch {
	case m.StateHash != x.hash:
		x.out = fmt.Sprintf("inconsistent: reports hash %016x, synced %016x", m.StateHash, x.hash)
	case len(m.Children) == 2 && merkle.Pair(m.Children[0], m.Children[1]) != x.hash:
		x.out = "inconsistent: the root's children do not hash to its state hash"
	case len(m.Children) == 2:
		x.claims[node{1, 0}], x.claims[node{1, 1}] = m.Children[0], m.Children[1]
	}
	return nil
}

func (w *desyncWalk) onNodes(x *walker, m *msg.MerkleNodes) error {
	n := node{int(m.Depth), int(m.Index)}
	if w.stage != stageNodes || !x.answers(n) {
		return fmt.Errorf("%w: Merkle nodes %v not asked for", ErrDuplicate, n)
	}
	parent, ok := x.claims[n]
	if !x.minority {
		parent, ok = w.ref[n]
	}
	if !ok || merkle.Pair(m.Left, m.Right) != parent {
		x.out = fmt.Sprintf("inconsistent: the children of node %d/%d do not hash to it", n.depth, n.index)
		return nil
	}
	if x.minority {
		x.claims[node{n.depth + 1, 2 * n.index}], x.claims[node{n.depth + 1, 2*n.index + 1}] = m.Left, m.Right
	} else {
		x.votes[n] = [2]uint64{m.Left, m.Right}
	}
	return nil
}

func (w *desyncWalk) onLeaf(x *walker, m *msg.LeafEntities) error {
	if w.stage != stageLeaves || !x.answers(node{w.depth, int(m.Leaf)}) {
		return fmt.Errorf("%w: leaf %d not asked for", ErrDuplicate, m.Leaf)
	}
	if len(m.Entities) > maxLeafEntities {
		x.out = fmt.Sprintf("a leaf of %d entities (at most %d)", len(m.Entities), maxLeafEntities)
		return nil
	}
	cp := *m
	cp.Fields = slices.Clone(m.Fields)
	cp.Entities = slices.Clone(m.Entities)
	for i := range cp.Entities {
		cp.Entities[i].Values = slices.Clone(cp.Entities[i].Values)
	}
	x.got[int(m.Leaf)] = &cp
	return nil
}

// answers removes n from what x is waiting for, reporting whether it was.
func (x *walker) answers(n node) bool {
	i := slices.Index(x.waiting, n)
	if i < 0 {
		return false
	}
	x.waiting = slices.Delete(x.waiting, i, i+1)
	return true
}

// walkTimeout leaves out the players the walk still waits for.
func (c *Core) walkTimeout() {
	w := &c.walk
	if !w.active || c.now < w.deadline {
		return
	}
	for _, x := range w.players {
		if x.in() && (len(x.waiting) > 0 || (w.stage == stageReports && !x.reported)) {
			x.out = "silent"
		}
	}
	c.walkProgress()
}

// walkDeadline is when the current round times out, if a walk runs.
func (c *Core) walkDeadline() (time.Duration, bool) { return c.walk.deadline, c.walk.active }

// walkProgress moves the walk on once nobody in it is awaited.
func (c *Core) walkProgress() {
	w := &c.walk
	for _, x := range w.players {
		if x.in() && (len(x.waiting) > 0 || (w.stage == stageReports && !x.reported)) {
			return
		}
	}
	switch w.stage {
	case stageReports:
		w.afterReports()
	case stageNodes:
		w.afterNodes()
	case stageLeaves:
		c.finishWalk()
		return
	}
	c.askRound()
}

// afterReports settles the majority's tree shape and root children and
// gives each minority player its first frontier.
func (w *desyncWalk) afterReports() {
	w.leaves = 0
	for _, x := range w.players {
		if !x.in() || x.minority {
			continue
		}
		if w.leaves == 0 {
			w.leaves = x.leaves
		}
		if x.leaves != w.leaves {
			x.out = fmt.Sprintf("tree of %d leaves, the other majority players' has %d", x.leaves, w.leaves)
		} else if l, ok := x.claims[node{1, 0}]; ok {
			x.votes[node{0, 0}] = [2]uint64{l, x.claims[node{1, 1}]}
		}
	}
	w.depth = merkle.Depth(w.leaves)
	w.settle([]node{{0, 0}})
	for _, x := range w.players {
		if x.in() && x.minority {
			if x.leaves != w.leaves {
				x.out = fmt.Sprintf("tree of %d leaves, the majority's has %d", x.leaves, w.leaves)
				continue
			}
			x.frontier = []node{{0, 0}}
			w.descend(x)
		}
	}
}

// afterNodes settles the reference children of the nodes just asked
// about and moves every minority frontier a level down.
func (w *desyncWalk) afterNodes() {
	w.settle(w.frontiers())
	for _, x := range w.players {
		if x.minority && x.in() {
			w.descend(x)
		}
	}
}

// settle records, for each node of asked, the children most consistent
// majority answers gave (the majority players' votes).
func (w *desyncWalk) settle(asked []node) {
	for _, n := range asked {
		tally := map[[2]uint64]int{}
		var best [2]uint64
		most := 0
		for _, x := range w.players {
			v, ok := x.votes[n]
			if x.minority || !x.in() || !ok {
				continue
			}
			if tally[v]++; tally[v] > most {
				best, most = v, tally[v]
			}
		}
		if most > 0 {
			w.ref[node{n.depth + 1, 2 * n.index}], w.ref[node{n.depth + 1, 2*n.index + 1}] = best[0], best[1]
		}
	}
	for _, x := range w.players {
		x.votes = map[node][2]uint64{}
	}
}

// descend replaces x's frontier by the children of its nodes that differ
// from the reference, leftmost first, at most maxWalkLeaves. At the
// leaves' depth the frontier stays: those are x's differing leaves. A
// consistent claim that differs from the reference has a differing child
// (else both would hash to the reference), so the frontier never empties.
func (w *desyncWalk) descend(x *walker) {
	if len(x.frontier) == 0 || x.frontier[0].depth == w.depth {
		return
	}
	var next []node
	for _, n := range x.frontier {
		for _, ch := range []node{{n.depth + 1, 2 * n.index}, {n.depth + 1, 2*n.index + 1}} {
			ref, ok := w.ref[ch]
			if !ok {
				x.out = "no majority player answered for the reference"
				return
			}
			// Padding subtrees (no real leaf) hash alike in honest trees.
			if x.claims[ch] != ref && ch.index<<(w.depth-ch.depth) < w.leaves {
				next = append(next, ch)
			}
		}
	}
	if len(next) > maxWalkLeaves {
		next, x.cut = next[:maxWalkLeaves], true
	}
	x.frontier = next
}

// frontiers is the union of the minority players' frontiers.
func (w *desyncWalk) frontiers() []node {
	var all []node
	for _, x := range w.players {
		if x.minority && x.in() {
			for _, n := range x.frontier {
				if !slices.Contains(all, n) {
					all = append(all, n)
				}
			}
		}
	}
	return all
}

// askRound sends the next round's queries: each minority player about
// its own frontier, each majority player about every frontier, or
// finishes the walk when no minority player is left in it.
func (c *Core) askRound() {
	w := &c.walk
	all := w.frontiers()
	if len(all) == 0 {
		c.finishWalk()
		return
	}
	slices.SortFunc(all, func(a, b node) int { return a.index - b.index })
	w.stage = stageNodes
	if all[0].depth == w.depth {
		w.stage = stageLeaves
	}
	for _, x := range w.players {
		if !x.in() {
			continue
		}
		ask := all
		if x.minority {
			ask = x.frontier
		}
		x.got = map[int]*msg.LeafEntities{}
		for _, n := range ask {
			q := &msg.MerkleQuery{Tick: w.tick, Depth: uint8(n.depth), Index: uint32(n.index)}
			c.send(x.id, q)
			w.charge(q, 1)
			x.waiting = append(x.waiting, n)
		}
	}
	w.cost.RoundTrips++
	w.deadline = c.now + c.cfg.DesyncTimeout
}

// finishWalk reports the walk's outcome: an event with the report, and
// the report to every client.
func (c *Core) finishWalk() {
	w := &c.walk
	w.cost.ElapsedMs = float64(c.now-w.started) / float64(time.Millisecond)
	r := w.report(c.gameSeed)
	doc := r.JSON()
	c.walk = desyncWalk{split: w.split}
	c.emit(DesyncDiagnosed{Report: r, JSON: doc})
	if len(doc) <= msg.MaxReportJSON {
		c.broadcast(&msg.DesyncReport{Tick: r.Tick, JSON: doc})
	}
}
