package lockstep

import (
	"slices"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/merkle"
)

// Inspectable is a Simulation that can answer the relay's desync walk. The
// relay asks about a sync tick after the client has moved past it, so the
// game loop captures the state of every tick the relay asked a hash for
// (the last keptCaptures of them are kept).
type Inspectable interface {
	Simulation
	CaptureDesync() DesyncCapture
}

// DesyncCapture is a simulation's state at one tick as the desync walk
// reads it. Its tree's root must be the tick's StateHash and its interior
// nodes merkle.Pair of their children.
type DesyncCapture interface {
	// Tree returns the state's Merkle tree, level by level, padded leaves
	// first and the root last (merkle.Node's layout), and its number of
	// leaves.
	Tree() (nodes []uint64, leaves int)
	// RNG is the simulation's random number generator state.
	RNG() uint64
	// Leaf returns what leaf i hashes, entity by entity, as named fields.
	Leaf(i int) (label string, fields []string, entities []msg.LeafEntity)
}

// desyncCapturer is a network model that answers the desync walk: a game
// loop gives it the captures it wants.
type desyncCapturer interface {
	WantsCapture(tick uint64) bool
	KeepCapture(tick uint64, c DesyncCapture)
}

// keptCaptures is how many sync ticks' captures a client keeps: as many
// as sync checks the relay keeps open.
const keptCaptures = 8

// desyncClient is the client's side of desync diagnosis: the room's debug
// level, the captures of recent sync ticks and the last report received.
type desyncClient struct {
	level    uint8
	captures []capture // oldest first
	report   *msg.DesyncReport
}

type capture struct {
	tick uint64
	c    DesyncCapture
}

func (d *desyncClient) keep(tick uint64, c DesyncCapture) {
	if len(d.captures) == keptCaptures {
		d.captures = slices.Delete(d.captures, 0, 1)
	}
	d.captures = append(d.captures, capture{tick, c})
}

func (d *desyncClient) find(tick uint64) DesyncCapture {
	for _, c := range d.captures {
		if c.tick == tick {
			return c.c
		}
	}
	return nil
}

// onDesync handles the relay's desync messages; a question about a tick
// the client kept no capture of goes unanswered (the relay's walk times
// the client out as silent).
func (c *clientCore) onDesync(m msg.Message) {
	d := &c.st.desync
	switch m := m.(type) {
	case *msg.DebugLevel:
		d.level = m.Level
	case *msg.DesyncReport:
		d.report = m
		c.log.Warn("lockstep: desync report received", "player", c.st.id, "tick", m.Tick)
	case *msg.DesyncDebugRequest, *msg.MerkleQuery:
		if a := AnswerDesync(m, d.find(desyncTick(m))); a != nil {
			c.send(a)
		}
	}
}

func desyncTick(m msg.Message) uint64 {
	switch m := m.(type) {
	case *msg.DesyncDebugRequest:
		return m.Tick
	case *msg.MerkleQuery:
		return m.Tick
	}
	return 0
}

// AnswerDesync is a client's answer to the relay's desync walk from the
// capture of the tick it asks about: a DesyncDebugReport for a
// DesyncDebugRequest, MerkleNodes or LeafEntities for a MerkleQuery; nil
// without a capture, for a node outside the tree, or for another message.
func AnswerDesync(m msg.Message, cp DesyncCapture) msg.Message {
	if cp == nil {
		return nil
	}
	switch m := m.(type) {
	case *msg.DesyncDebugRequest:
		return debugReport(m.Tick, cp)
	case *msg.MerkleQuery:
		return answerQuery(m, cp)
	}
	return nil
}

// debugReport is the DesyncDebugReport of a capture.
func debugReport(tick uint64, cp DesyncCapture) *msg.DesyncDebugReport {
	nodes, leaves := cp.Tree()
	width := merkle.Width(leaves)
	root, _ := merkle.Node(nodes, width, 0, 0)
	r := &msg.DesyncDebugReport{Tick: tick, StateHash: root, RNG: cp.RNG(), Leaves: uint32(leaves)}
	if leaves > 1 {
		l, _ := merkle.Node(nodes, width, 1, 0)
		rt, _ := merkle.Node(nodes, width, 1, 1)
		r.Children = []uint64{l, rt}
	}
	return r
}

// answerQuery answers a MerkleQuery from a capture: the children of an
// interior node, or a leaf's entities; nil for a node outside the tree.
func answerQuery(q *msg.MerkleQuery, cp DesyncCapture) msg.Message {
	nodes, leaves := cp.Tree()
	width, depth := merkle.Width(leaves), merkle.Depth(leaves)
	d, i := int(q.Depth), int(q.Index)
	if d < depth {
		l, ok1 := merkle.Node(nodes, width, d+1, 2*i)
		r, ok2 := merkle.Node(nodes, width, d+1, 2*i+1)
		if !ok1 || !ok2 {
			return nil
		}
		return &msg.MerkleNodes{Tick: q.Tick, Depth: q.Depth, Index: q.Index, Left: l, Right: r}
	}
	if d > depth || i >= leaves {
		return nil
	}
	label, fields, entities := cp.Leaf(i)
	return &msg.LeafEntities{Tick: q.Tick, Leaf: q.Index, Label: label, Fields: fields, Entities: entities}
}

// WantsCapture reports whether the relay asked for tick's state hash and
// so may ask about its state (the game loop then calls KeepCapture before
// ReportSyncHash).
func (c *RelayClient) WantsCapture(tick uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.core.st.syncWanted, tick)
}

// KeepCapture keeps the state of a sync tick for the desync walk.
func (c *RelayClient) KeepCapture(tick uint64, cp DesyncCapture) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.core.st.desync.keep(tick, cp)
}

// DebugLevel is the room's desync debug level, as the relay told it at the
// start of the match (0 if it did not).
func (c *RelayClient) DebugLevel() uint8 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.st.desync.level
}

// DesyncReport returns the last desync report the relay sent (the
// document of desync_report_{seed}_{tick}.json), if any.
func (c *RelayClient) DesyncReport() (tick uint64, json []byte, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.core.st.desync.report
	if r == nil {
		return 0, nil, false
	}
	return r.Tick, slices.Clone(r.JSON), true
}
