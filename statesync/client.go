package statesync

import (
	"fmt"
	"slices"

	"github.com/tickwire/tickwire/statesync/msg"
)

// ClientConfig configures a client core. The zero value is usable.
type ClientConfig struct {
	// MaxHeld bounds the Ticks a client holds back while it syncs, is
	// frozen for a correction, or waits for a missing Tick (default 256).
	MaxHeld int
	// DeltaFrames is how many frames of its own deltas a client keeps to
	// answer PARTITION_REQUESTs (default 60, the seed's deltaFrames).
	DeltaFrames int
}

type clientPhase uint8

const (
	phaseWelcome clientPhase = iota // no Welcome yet
	phaseSyncing                    // waiting for a full state
	phaseRunning                    // simulating each Tick
	phaseFrozen                     // holding a checkpoint for a correction
)

// Client is the state-sync client core: it simulates every Tick with the
// game's Engine, reports its state hash, sends the partitions the
// zero-coordination assignment gives it, and answers the server's
// requests. Like Server it is a pure state machine: Step in, Ready out.
type Client struct {
	cfg   ClientConfig
	e     Engine
	id    uint32
	phase clientPhase
	frame uint32 // the last frame simulated
	hash  uint32 // the state hash after it
	count int    // entities after it

	held     []*msg.Tick
	frozen   uint32
	hadState bool // the engine holds a state this client simulated (not a fresh one)

	list        []uint32
	listVersion uint32
	scores      []msg.Score
	relVersion  uint32
	lastAsk     uint32 // frame of the last SyncRequest

	deltas   []ownDelta
	kept     []snapshot // states kept for EntityRequests (at most 3)
	hashes   [64]frameHash
	full     []*msg.FullState
	fullAt   uint32 // the frame of the parts in full
	tracker  DeltaTracker
	hasher   Hasher
	assigner Assigner
	comp     *Compressor
	scratch  []byte

	out []msg.Message
	evs []ClientEvent
}

type ownDelta struct {
	frame uint32
	parts int
	delta Delta
	enc   []byte
}

type frameHash struct {
	frame, hash uint32
}

// ClientEventKind says what a ClientEvent records.
type ClientEventKind uint8

// Client event kinds.
const (
	ClientSynced        ClientEventKind = iota + 1 // applied a verified full state at Frame
	ClientDesynced                                 // the server named this client desynced at Frame
	ClientCorrected                                // applied a correction at Frame; Diffs says what was wrong
	ClientRecoveryFail                             // a correction or full state did not verify; asked for a full state
	ClientAgreed                                   // a verdict for Frame matched this client's hash
	ClientDisagreed                                // a verdict for Frame did not
	ClientDeltaMismatch                            // the server's assembled delta for Frame differs from this client's own
)

// ClientEvent is something the client core did.
type ClientEvent struct {
	Kind  ClientEventKind
	Frame uint32
	Diffs []string
	Bytes int
}

// NewClient returns a client core that plays with e.
func NewClient(cfg ClientConfig, e Engine) *Client {
	if cfg.MaxHeld <= 0 {
		cfg.MaxHeld = 256
	}
	if cfg.DeltaFrames <= 0 {
		cfg.DeltaFrames = 60
	}
	return &Client{cfg: cfg, e: e, comp: NewCompressor()}
}

// ID is the client's id, known after Welcome.
func (c *Client) ID() uint32 { return c.id }

// Frame is the last frame simulated and Hash the state hash after it.
func (c *Client) Frame() uint32 { return c.frame }

// Hash is the state hash after Frame.
func (c *Client) Hash() uint32 { return c.hash }

// HashAt is the state hash after frame f, if f is one of the last 64
// frames this client simulated or synced to.
func (c *Client) HashAt(f uint32) (uint32, bool) {
	h := c.hashes[f%uint32(len(c.hashes))]
	return h.hash, h.frame == f && f != 0
}

// Running reports whether the client simulates (neither syncing nor
// frozen for a correction).
func (c *Client) Running() bool { return c.phase == phaseRunning }

// Input queues the local player's input; the server puts it in the next
// frame it broadcasts.
func (c *Client) Input(data []byte) {
	c.out = append(c.out, &msg.Input{Data: slices.Clone(data)})
}

// Step feeds one decoded message from the server. Messages are copied
// where kept, so the caller may reuse its buffer. It takes no now because
// the client has no clock of its own: the server's frames pace it, and
// everything it waits for is counted in frames (a Tick is simulated when
// the frame before it was; it asks for the roster at most once every ten
// frames). Timeouts are the server's, which takes now (the core never
// reads the clock: internal/layering TestCoresReadNoClock).
func (c *Client) Step(m msg.Message) error {
	switch m := m.(type) {
	case *msg.Welcome:
		return c.onWelcome(m)
	case *msg.ClientListUpdate:
		if m.Version > c.listVersion {
			c.list, c.listVersion = slices.Clone(m.Clients), m.Version
		}
	case *msg.ReliabilityUpdate:
		if m.Version > c.relVersion {
			c.scores, c.relVersion = slices.Clone(m.Scores), m.Version
		}
	case *msg.Tick:
		c.hold(cloneTick(m))
		c.drain()
	case *msg.PartitionRequest:
		c.onPartitionRequest(m)
	case *msg.EntityRequest:
		c.onEntityRequest(m)
	case *msg.PartitionCorrection:
		return c.onCorrection(m)
	case *msg.FullState:
		return c.onFullState(m)
	default:
		return fmt.Errorf("%w: %v", ErrUnexpected, m.Type())
	}
	return nil
}

// onWelcome starts the client, or starts it over when the server took it
// for a new client (it had dropped it, or the client said HELLO).
func (c *Client) onWelcome(m *msg.Welcome) error {
	c.id = m.Client
	c.full = nil
	c.held = slices.DeleteFunc(c.held, func(t *msg.Tick) bool { return t.Frame < m.Frame })
	c.frame = m.Frame - 1
	if m.Bootstrap {
		c.e.Reset()
		c.restart()
		c.phase = phaseRunning
		return nil
	}
	c.phase = phaseSyncing
	return nil
}

// restart takes the engine's state as the base of the next frame.
func (c *Client) restart() {
	c.hadState = true
	c.tracker.Reset(c.e)
	c.hash, c.count = c.hasher.StateHash(c.e)
	c.deltas = c.deltas[:0]
}

func cloneTick(t *msg.Tick) *msg.Tick {
	n := *t
	n.Inputs = slices.Clone(t.Inputs)
	for i := range n.Inputs {
		n.Inputs[i].Data = slices.Clone(n.Inputs[i].Data)
	}
	n.Verdict.Desynced = slices.Clone(t.Verdict.Desynced)
	n.Assembled.Delta = slices.Clone(t.Assembled.Delta)
	n.Requests = slices.Clone(t.Requests)
	return &n
}

// hold keeps a Tick in frame order until it can be simulated.
func (c *Client) hold(t *msg.Tick) {
	if c.phase == phaseRunning && t.Frame <= c.frame {
		return // a duplicate
	}
	i, found := slices.BinarySearchFunc(c.held, t.Frame, func(h *msg.Tick, f uint32) int { return cmpU32(h.Frame, f) })
	if found {
		return
	}
	c.held = slices.Insert(c.held, i, t)
	if len(c.held) > c.cfg.MaxHeld {
		// Too far behind to catch up by replay: start over from a full
		// state.
		c.held = c.held[len(c.held)-c.cfg.MaxHeld:]
		if c.phase == phaseRunning {
			c.askFullState()
		}
	}
}

// drain simulates the held Ticks that follow the current frame.
func (c *Client) drain() {
	for c.phase == phaseRunning && len(c.held) > 0 {
		t := c.held[0]
		if t.Frame <= c.frame {
			c.held = c.held[1:]
			continue
		}
		if t.Frame != c.frame+1 {
			return // a Tick is missing; wait for it
		}
		c.held = c.held[1:]
		c.simulate(t)
	}
}

func (c *Client) askFullState() {
	c.phase = phaseSyncing
	c.full = nil
	c.out = append(c.out, &msg.SyncRequest{What: msg.SyncFullState})
	c.evs = append(c.evs, ClientEvent{Kind: ClientRecoveryFail, Frame: c.frame})
}

// simulate runs one frame and sends what the frame asks of this client.
func (c *Client) simulate(t *msg.Tick) {
	c.e.Step(t.Frame, t.Inputs)
	base := c.hash
	c.frame = t.Frame
	c.hash, c.count = c.hasher.StateHash(c.e)
	c.hashes[t.Frame%uint32(len(c.hashes))] = frameHash{t.Frame, c.hash}
	c.out = append(c.out, &msg.StateHash{Frame: t.Frame, Hash: c.hash})
	if t.Digest {
		c.out = append(c.out, &msg.StateDigest{Frame: t.Frame, Entities: uint32(c.count), Digest: c.hasher.Digest()})
	}
	d := c.tracker.Compute(t.Frame, base, c.hash, c.e, nil)
	own := ownDelta{frame: t.Frame, delta: d, enc: AppendDelta(nil, &d), parts: max(int(t.Parts), 1)}
	current := t.ClientListVersion == c.listVersion && t.ReliabilityVersion == c.relVersion
	c.keepDelta(own)
	if !current {
		c.askRoster(t)
	} else if !t.ReadOnly {
		c.sendAssigned(t, &own)
	}
	if t.HasVerdict {
		c.onVerdict(&t.Verdict)
	}
	if t.HasAssembled {
		c.checkAssembled(&t.Assembled)
	}
	for _, q := range t.Requests {
		if q.Client == c.id {
			c.onRequest(t.Frame, q)
		}
	}
}

func (c *Client) keepDelta(d ownDelta) {
	c.deltas = append(c.deltas, d)
	if len(c.deltas) > c.cfg.DeltaFrames {
		c.deltas[0] = ownDelta{}
		c.deltas = c.deltas[1:]
	}
}

// askRoster asks for the versions the Tick says exist; until they come the
// client abstains from sending partitions (the seed's fix for stale
// scores). It asks at most once every ten frames.
func (c *Client) askRoster(t *msg.Tick) {
	if c.lastAsk != 0 && t.Frame-c.lastAsk < 10 {
		return
	}
	var what msg.SyncWhat
	if t.ClientListVersion != c.listVersion {
		what |= msg.SyncClientList
	}
	if t.ReliabilityVersion != c.relVersion {
		what |= msg.SyncReliability
	}
	c.lastAsk = t.Frame
	c.out = append(c.out, &msg.SyncRequest{What: what})
}

func (c *Client) sendAssigned(t *msg.Tick, own *ownDelta) {
	if _, in := slices.BinarySearch(c.list, c.id); !in {
		return
	}
	a := c.assigner.Assign(AssignInput{Frame: t.Frame, ListVersion: c.listVersion, Clients: c.list,
		Score: func(id uint32) uint16 { return ScoreIn(c.scores, id) }, Parts: own.parts})
	for _, p := range a.PrimaryOf(nil, c.id) {
		c.sendPartition(own, uint16(p), uint16(own.parts))
	}
}

func (c *Client) sendPartition(own *ownDelta, part, parts uint16) {
	raw := PartitionDelta(nil, &own.delta, part, parts)
	enc, data := c.comp.Encode(nil, raw)
	c.out = append(c.out, &msg.PartitionData{Frame: own.frame, ListVersion: c.listVersion, Part: part, Parts: parts,
		Encoding: enc, Data: data})
}

func (c *Client) onPartitionRequest(m *msg.PartitionRequest) {
	for i := range c.deltas {
		own := &c.deltas[i]
		if own.frame != m.Frame {
			continue
		}
		if m.Parts != 0 {
			c.sendPartition(own, m.Part, m.Parts)
			return
		}
		for p := range own.parts {
			c.sendPartition(own, uint16(p), uint16(own.parts))
		}
		return
	}
}

func (c *Client) onVerdict(v *msg.Verdict) {
	if _, me := slices.BinarySearch(v.Desynced, c.id); me {
		c.evs = append(c.evs, ClientEvent{Kind: ClientDesynced, Frame: v.Frame})
	}
	if h := c.hashes[v.Frame%uint32(len(c.hashes))]; h.frame == v.Frame {
		kind := ClientAgreed
		if h.hash != v.Hash {
			kind = ClientDisagreed
		}
		c.evs = append(c.evs, ClientEvent{Kind: kind, Frame: v.Frame})
	}
}

func (c *Client) checkAssembled(a *msg.Assembled) {
	for i := range c.deltas {
		if c.deltas[i].frame == a.Frame {
			if HashBytes(c.deltas[i].enc) != a.Hash {
				c.evs = append(c.evs, ClientEvent{Kind: ClientDeltaMismatch, Frame: a.Frame})
			}
			return
		}
	}
}

func (c *Client) onRequest(frame uint32, q msg.Request) {
	switch q.Kind {
	case msg.RequestFreeze:
		c.sendLeaves(frame)
		c.phase, c.frozen = phaseFrozen, frame
	case msg.RequestLeaves:
		c.sendLeaves(frame)
		c.kept = append(c.kept, snapshot{frame: frame, hash: c.hash, state: FullState(nil, c.e)})
		if len(c.kept) > 3 {
			c.kept = c.kept[1:]
		}
	case msg.RequestResync:
		c.phase, c.full = phaseSyncing, nil
	case msg.RequestFullPart:
		set := FullStatePartition(nil, c.e, q.Part, q.Parts)
		enc, data := c.comp.Encode(nil, set)
		c.out = append(c.out, &msg.EntityData{Frame: frame, Kind: msg.EntitiesFullPart, Part: q.Part, Parts: q.Parts,
			Encoding: enc, Data: data})
	}
}

func (c *Client) sendLeaves(frame uint32) {
	var leaves []msg.Leaf
	leaves, c.scratch = Leaves(nil, c.e, c.scratch)
	c.out = append(c.out, &msg.MerkleLeaves{Frame: frame, Leaves: leaves})
}

func (c *Client) onEntityRequest(m *msg.EntityRequest) {
	for _, k := range c.kept {
		if k.frame != m.Frame {
			continue
		}
		var set []byte
		rd := ReadEntities(k.state)
		for e, ok := rd.Next(); ok; e, ok = rd.Next() {
			if _, in := slices.BinarySearch(m.Buckets, BucketOf(e.ID)); in {
				set = AppendEntity(set, e.ID, e.Data)
			}
		}
		enc, data := c.comp.Encode(nil, set)
		c.out = append(c.out, &msg.EntityData{Frame: m.Frame, Kind: msg.EntitiesBuckets, Encoding: enc, Data: data})
		return
	}
}

// onCorrection replaces the divergent buckets of the frozen state, logs
// what differed field by field, and resumes if the state now hashes to
// the majority's.
func (c *Client) onCorrection(m *msg.PartitionCorrection) error {
	if c.phase != phaseFrozen || m.Frame != c.frozen {
		return nil // stale
	}
	set, err := c.comp.Decode(nil, m.Encoding, m.Data)
	if err == nil {
		err = checkEntitySet(set)
	}
	if err != nil {
		c.askFullState()
		return err
	}
	theirs := map[uint32][]byte{}
	rd := ReadEntities(set)
	for e, ok := rd.Next(); ok; e, ok = rd.Next() {
		theirs[e.ID] = e.Data
	}
	mine := map[uint32][]byte{}
	for id, data := range c.e.Entities() {
		if _, in := slices.BinarySearch(m.Buckets, BucketOf(id)); in {
			mine[id] = slices.Clone(data)
		}
	}
	var diffs []string
	differ, _ := c.e.(Differ)
	for id, data := range mine {
		if t, ok := theirs[id]; !ok || string(t) != string(data) {
			diffs = append(diffs, describe(differ, id, data, t))
		}
		c.e.RemoveEntity(id)
	}
	for id, data := range theirs {
		if _, ok := mine[id]; !ok {
			diffs = append(diffs, describe(differ, id, nil, data))
		}
		if err := c.e.SetEntity(id, data); err != nil {
			c.askFullState()
			return err
		}
	}
	slices.Sort(diffs)
	c.restart()
	if c.hash != m.Hash || c.hasher.Digest() != m.Digest {
		c.askFullState()
		return nil
	}
	c.hashes[c.frame%uint32(len(c.hashes))] = frameHash{c.frame, c.hash}
	c.evs = append(c.evs, ClientEvent{Kind: ClientCorrected, Frame: m.Frame, Diffs: diffs, Bytes: len(m.Data)})
	c.phase = phaseRunning
	c.drain()
	return nil
}

// maxFullParts bounds the parts of a full state a client collects (the
// server sends one per state source).
const maxFullParts = 64

// maxDiffs bounds the entities a snapshot's diff names.
const maxDiffs = 32

// diffAt describes how this client's own state differs from a verified
// full state of frame f, when it has a state of its own (a snapshot
// fallback rather than a first join): it first simulates its held Ticks
// up to f, so that both sides are the same frame and only what was wrong
// shows.
func (c *Client) diffAt(f uint32, set []byte) []string {
	if !c.hadState {
		return nil
	}
	for _, t := range c.held {
		if t.Frame == c.frame+1 && t.Frame <= f {
			c.e.Step(t.Frame, t.Inputs)
			c.frame = t.Frame
		}
	}
	if c.frame != f {
		return nil
	}
	theirs := map[uint32][]byte{}
	rd := ReadEntities(set)
	for e, ok := rd.Next(); ok; e, ok = rd.Next() {
		theirs[e.ID] = e.Data
	}
	differ, _ := c.e.(Differ)
	var diffs []string
	more := 0
	note := func(id uint32, mine, t []byte) {
		if len(diffs) < maxDiffs {
			diffs = append(diffs, describe(differ, id, mine, t))
		} else {
			more++
		}
	}
	for id, data := range c.e.Entities() {
		t, ok := theirs[id]
		if !ok || string(t) != string(data) {
			note(id, slices.Clone(data), t)
		}
		delete(theirs, id)
	}
	for id, t := range theirs {
		note(id, nil, t)
	}
	if more > 0 {
		diffs = append(diffs, fmt.Sprintf("and %d more entities", more))
	}
	return diffs
}

func describe(d Differ, id uint32, mine, theirs []byte) string {
	if d != nil {
		return d.DiffEntity(id, mine, theirs)
	}
	return fmt.Sprintf("entity %d: % x != % x", id, mine, theirs)
}

// onFullState collects the parts of a full state, verifies the whole
// against the majority hash and replays the held Ticks after it.
func (c *Client) onFullState(m *msg.FullState) error {
	if c.phase == phaseRunning || c.phase == phaseWelcome {
		return nil
	}
	if m.Parts > maxFullParts {
		return fmt.Errorf("%w: full state in %d parts", ErrUnexpected, m.Parts)
	}
	if c.full == nil || c.fullAt != m.Frame || int(m.Parts) != len(c.full) {
		c.full, c.fullAt = make([]*msg.FullState, m.Parts), m.Frame
	}
	data, err := c.comp.Decode(nil, m.Encoding, m.Data)
	if err != nil {
		return err
	}
	part := *m
	part.Data = slices.Clone(data)
	c.full[m.Part] = &part
	sets := make([][]byte, len(c.full))
	for i, p := range c.full {
		if p == nil {
			return nil
		}
		sets[i] = p.Data
	}
	c.full = nil
	merged, err := MergeEntitySets(nil, sets)
	if err != nil || HashBytes(merged) != m.Hash || DigestBytes(merged) != m.Digest {
		c.askFullState()
		return err
	}
	diffs := c.diffAt(m.Frame, merged)
	if err := ApplyFullState(c.e, merged); err != nil {
		c.askFullState()
		return err
	}
	c.frame = m.Frame
	c.restart()
	c.hashes[c.frame%uint32(len(c.hashes))] = frameHash{c.frame, c.hash}
	c.phase = phaseRunning
	c.evs = append(c.evs, ClientEvent{Kind: ClientSynced, Frame: m.Frame, Bytes: len(merged), Diffs: diffs})
	c.drain()
	return nil
}

// ClientReady is what the client core produced since the last Advance:
// messages for the server and events.
type ClientReady struct {
	Messages []msg.Message
	Events   []ClientEvent
}

// HasReady reports whether Ready would return anything.
func (c *Client) HasReady() bool { return len(c.out) > 0 || len(c.evs) > 0 }

// Ready returns what the core produced since the last Advance.
func (c *Client) Ready() ClientReady { return ClientReady{Messages: c.out, Events: c.evs} }

// Advance releases what the last Ready held.
func (c *Client) Advance(rd ClientReady) {
	c.out = append(c.out[:0], c.out[len(rd.Messages):]...)
	c.evs = append(c.evs[:0], c.evs[len(rd.Events):]...)
}
