package statesync

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tickwire/tickwire/statesync/msg"
)

// Errors returned by the server core. Test with errors.Is.
var (
	ErrUnknownClient = errors.New("statesync: unknown client")
	ErrDuplicate     = errors.New("statesync: client already in the room")
	ErrRoomFull      = errors.New("statesync: room full")
	// ErrFrame: a submission for a frame that is not being collected
	// (the seed's server-driven frames reject any other).
	ErrFrame = errors.New("statesync: submission for a frame not being collected")
	// ErrVersion: a partition assigned with another client-list version.
	ErrVersion = errors.New("statesync: partition from another client-list version")
	// ErrUnexpected: a message a client does not send, or not now.
	ErrUnexpected = errors.New("statesync: unexpected message")
)

// ClientState is a client's place in the seed's state machine.
type ClientState uint8

// Client states.
const (
	StateNew          ClientState = iota // joined, not yet welcomed
	StateSyncing                         // waiting for a full state; not in the sender pool
	StateActive                          // synced; in the sender pool
	StateDisconnected                    // gone
)

func (s ClientState) String() string {
	return [...]string{"NEW", "SYNCING", "ACTIVE", "DISCONNECTED"}[s]
}

// Config configures a server core. The zero Config is the seed's design.
type Config struct {
	// TickHz is the frame rate (default 20).
	TickHz int
	// SubmitWindow is how long after a Tick its frame's hashes and
	// partitions are collected before the verdict (default 100 ms, the
	// seed's PARTITION_TIMEOUT).
	SubmitWindow time.Duration
	// RequestTimeout is how long a PARTITION_REQUEST or a late-join or
	// recovery step may take before the server gives up on it (default
	// 100 ms for partitions; recovery and late join allow 20 of them).
	RequestTimeout time.Duration
	// FullCheckInterval is how many frames apart the server assembles and
	// verifies the full state (default 100).
	FullCheckInterval uint32
	// StateSources is how many of the most reliable clients send a
	// partition of the full state for a late joiner (default 4, at most
	// 64, the parts a client collects).
	StateSources int
	// ClientTimeout disconnects a client silent for this long (default 3 s).
	ClientTimeout time.Duration
	// QuorumPct and QuorumGrace: with fewer ACTIVE clients than QuorumPct
	// percent of the peak for longer than QuorumGrace the room is
	// read-only (defaults 60 and 5 s).
	QuorumPct   int
	QuorumGrace time.Duration
	// MaxClients bounds the room (default 4096).
	MaxClients int
	// InputBytes bounds one client's input per frame (default 256).
	InputBytes int
	// QuorumDecay: while fewer clients are ACTIVE than the peak, the peak
	// falls by one every QuorumDecay (default 10 s), so a room that
	// shrinks slowly is not taken for a split; a graceful leave lowers it
	// at once.
	QuorumDecay time.Duration
	// MaxDesyncs and DesyncWindow: a client that desyncs more than
	// MaxDesyncs times within DesyncWindow is removed and cannot join
	// again for DesyncWindow (defaults 5 and 60 s; a negative MaxDesyncs
	// never removes).
	MaxDesyncs   int
	DesyncWindow time.Duration
	// RejoinInterval is the least time between two HELLOs of one client
	// and between two full-state SyncRequests (default 5 s); sooner ones
	// are refused as a flood.
	RejoinInterval time.Duration
	// Seed seeds the server's own random choices (which in-sync clients
	// source a recovery or a full state); an embedder should pass a
	// secret random value, so that no client can predict them.
	Seed uint64
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defD := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.TickHz, 20)
	defD(&c.SubmitWindow, 100*time.Millisecond)
	defD(&c.RequestTimeout, 100*time.Millisecond)
	if c.FullCheckInterval == 0 {
		c.FullCheckInterval = 100
	}
	def(&c.StateSources, 4)
	c.StateSources = min(c.StateSources, maxFullParts)
	defD(&c.ClientTimeout, 3*time.Second)
	def(&c.QuorumPct, 60)
	defD(&c.QuorumGrace, 5*time.Second)
	def(&c.MaxClients, 4096)
	def(&c.InputBytes, 256)
	defD(&c.QuorumDecay, 10*time.Second)
	if c.MaxDesyncs == 0 {
		c.MaxDesyncs = 5
	}
	defD(&c.DesyncWindow, 60*time.Second)
	defD(&c.RejoinInterval, 5*time.Second)
	return c
}

// Envelope is one message to send: to one client, or with Broadcast to
// every client in the room that has been welcomed.
type Envelope struct {
	To        uint32
	Broadcast bool
	Msg       msg.Message
}

// Ready is what the core produced since the last Advance. Its slices stay
// valid until Advance.
type Ready struct {
	Messages []Envelope
	Events   []Event
}

type client struct {
	id        uint32
	state     ClientState
	lastHeard time.Duration
	joinedAt  time.Duration
	input     []byte // for the next frame
	// desyncedAt is the frame of the verdict that found it desynced
	// while its recovery runs; 0 when in sync.
	recovering *recovery
	syncedFrom uint32 // the frame of the full state it was sent
	waiting    bool   // SYNCING and waiting for an assembly
	lateJoinAt time.Duration
	offences   uint32
	desyncs    []time.Duration // when it desynced, within DesyncWindow
	lastResync time.Duration   // its last full-state SyncRequest
	lastRoster uint32          // the frame of its last roster SyncRequest
}

// Server is the state-sync server of one room as a pure state machine:
// the embedder feeds it joins, leaves, decoded messages and the passage of
// time (every method takes now, a monotonic duration since an epoch of the
// embedder's choosing), sends what Ready returns and calls Advance. It
// never reads a clock, starts a goroutine or touches a socket, and it
// holds no game state: the truth is the majority of the clients' hashes.
//
// A Server is not safe for concurrent use.
type Server struct {
	cfg      Config
	interval time.Duration
	now      time.Duration

	clients map[uint32]*client
	// list is the published ACTIVE list, the sender pool of the frames
	// broadcast with listVersion; listDirty says it must be republished.
	list        []uint32
	listVersion uint32
	listDirty   bool
	listSent    uint32 // the version last broadcast
	rel         *ReliabilityTracker
	// entities is the entity count last agreed by digest, from which
	// the server computes each frame's partition count.
	entities   uint32
	majorities [64]frameHash // the majority hash of recent frames
	agreed     frameHash     // the latest frame with a majority hash
	suspects   map[uint32]time.Duration
	removed    map[uint32]time.Duration // removed clients, barred until then
	rng        xorshift128

	next     uint32        // the next frame to broadcast
	nextAt   time.Duration // when
	started  bool
	frames   []*frameRec // open frames, ascending
	verdict  *msg.Verdict
	desynced []uint32 // union of desynced clients since the last Tick
	assembled
	history   deltaHistory
	snapshots snapshotHistory

	departed   []uint32    // clients gone since the last Tick, told to the game by an empty input
	resyncs    []uint32    // clients to tell, in the next Tick, to wait for a full state
	checkpoint *checkpoint // recoveries whose Tick has not been sent
	recoveries []*checkpoint
	assembly   *assembly // the full-state assembly not yet requested
	assemblies []*assembly
	// wholeFrom: the sources of the last merged state, which failed;
	// the next assembly asks each of them for the whole state, to find
	// who lied.
	wholeFrom []uint32

	quorum quorum
	churn  churn

	assigner Assigner
	comp     *Compressor
	scratch  []byte

	stats Stats
	out   []Envelope
	evs   []Event
}

// assembled is the latest assembled delta not yet sent in a Tick.
type assembled struct {
	pending bool
	frame   uint32
	delta   []byte
}

// NewServer returns the core of an empty room whose first frame will be
// broadcast at now.
func NewServer(cfg Config, now time.Duration) *Server {
	cfg = cfg.withDefaults()
	return &Server{
		cfg: cfg, interval: time.Second / time.Duration(cfg.TickHz), now: now,
		clients: make(map[uint32]*client), listVersion: 1, rel: NewReliabilityTracker(),
		next: 1, nextAt: now, comp: NewCompressor(), rng: newXorshift128(cfg.Seed),
		history: deltaHistory{limit: 60}, snapshots: snapshotHistory{limit: 3},
	}
}

func (s *Server) advance(now time.Duration) {
	if now > s.now {
		s.now = now
	}
}

// Frame is the next frame to be broadcast.
func (s *Server) Frame() uint32 { return s.next }

// ReadOnly reports whether the room has lost its quorum.
func (s *Server) ReadOnly() bool { return s.quorum.readOnly }

// State returns a client's state.
func (s *Server) State(id uint32) ClientState {
	if c := s.clients[id]; c != nil {
		return c.state
	}
	return StateDisconnected
}

// ListVersion is the version of the published ACTIVE list.
func (s *Server) ListVersion() uint32 { return s.listVersion }

// ActiveClients is the published ACTIVE list.
func (s *Server) ActiveClients() []uint32 { return s.list }

// Join adds a client. The first client of an empty room bootstraps it and
// is ACTIVE at once; any other is SYNCING until a verified full state,
// assembled from the most reliable clients, has reached it.
func (s *Server) Join(now time.Duration, id uint32) error {
	s.advance(now)
	if _, ok := s.clients[id]; ok {
		return fmt.Errorf("%w: %d", ErrDuplicate, id)
	}
	if len(s.clients) >= s.cfg.MaxClients {
		return ErrRoomFull
	}
	if s.barred(id) {
		return fmt.Errorf("%w: %d", ErrRemoved, id)
	}
	c := &client{id: id, state: StateNew, lastHeard: s.now, joinedAt: s.now}
	s.clients[id] = c
	s.churn.add(s.now)
	// Before the first frame every client starts from the initial state,
	// as does the first client of an empty room.
	if !s.started || len(s.list) == 0 && !s.anyActive() {
		c.state = StateActive
		i, _ := slices.BinarySearch(s.list, id)
		s.list = slices.Insert(slices.Clone(s.list), i, id)
		s.listDirty = true
		s.send(id, &msg.Welcome{Client: id, Frame: s.next, TickHz: uint16(s.cfg.TickHz), Bootstrap: true})
		s.emit(Event{Kind: EventJoined, Client: id, Frame: s.next, Bootstrap: true})
		return nil
	}
	c.state = StateSyncing
	c.lateJoinAt = s.now
	s.send(id, &msg.Welcome{Client: id, Frame: s.next, TickHz: uint16(s.cfg.TickHz)})
	s.sendRoster(id)
	s.needState(c)
	s.emit(Event{Kind: EventJoined, Client: id, Frame: s.next})
	return nil
}

func (s *Server) anyActive() bool {
	for _, c := range s.clients {
		if c.state == StateActive {
			return true
		}
	}
	return false
}

// sendRoster sends the current client list and reliability table to one
// client.
func (s *Server) sendRoster(id uint32) {
	s.publishList(false)
	s.send(id, &msg.ClientListUpdate{Version: s.listVersion, Clients: s.list})
	t := s.rel.Table()
	s.send(id, &t)
}

// publishList gives a changed client list a new version before anyone is
// sent it, and with broadcast sends it to the room if the room has not
// had that version yet.
func (s *Server) publishList(broadcast bool) {
	if s.listDirty {
		s.listVersion++
		s.listDirty = false
	}
	if broadcast && s.listSent != s.listVersion {
		s.listSent = s.listVersion
		s.broadcast(&msg.ClientListUpdate{Version: s.listVersion, Clients: s.list})
	}
}

// Leave disconnects a client: it leaves the sender pool at the next frame
// and its reliability score is forgotten.
func (s *Server) Leave(now time.Duration, id uint32) {
	s.advance(now)
	c := s.clients[id]
	if c == nil {
		return
	}
	s.quorum.left()
	s.drop(c)
}

// Rejoin is a HELLO: the client starts afresh, as Leave then Join, but
// keeps its record of offences and desyncs (a HELLO does not launder
// them). A client may do so once per RejoinInterval; a sooner HELLO is
// refused (ErrThrottled) and counted as a flood.
func (s *Server) Rejoin(now time.Duration, id uint32) error {
	s.advance(now)
	c := s.clients[id]
	if c == nil {
		return s.Join(now, id)
	}
	if s.now-c.joinedAt < s.cfg.RejoinInterval {
		s.offend(c, OffenceFlood)
		return ErrThrottled
	}
	s.Leave(now, id)
	if err := s.Join(now, id); err != nil {
		return err
	}
	again := s.clients[id]
	again.offences, again.desyncs = c.offences, c.desyncs
	return nil
}

// drop removes a client from everything the room holds for it.
func (s *Server) drop(c *client) {
	c.state = StateDisconnected
	if r := c.recovering; r != nil {
		r.abandon()
		c.recovering = nil
	}
	s.forget(c.id)
	delete(s.clients, c.id)
	delete(s.suspects, c.id)
	s.departed = append(s.departed, c.id)
	s.rel.Remove(c.id)
	s.churn.add(s.now)
	if i, ok := slices.BinarySearch(s.list, c.id); ok {
		s.list = slices.Delete(slices.Clone(s.list), i, i+1)
		s.listDirty = true
	}
	s.emit(Event{Kind: EventLeft, Client: c.id, Frame: s.next})
}

// Step feeds one decoded message from a client.
func (s *Server) Step(now time.Duration, from uint32, m msg.Message) error {
	s.advance(now)
	c := s.clients[from]
	if c == nil {
		return fmt.Errorf("%w: %d", ErrUnknownClient, from)
	}
	c.lastHeard = s.now
	switch m := m.(type) {
	case *msg.Input:
		if len(m.Data) > s.cfg.InputBytes {
			return fmt.Errorf("%w: input of %d bytes", ErrUnexpected, len(m.Data))
		}
		c.input = append(c.input[:0], m.Data...)
		return nil
	case *msg.StateHash:
		return s.onHash(c, m)
	case *msg.StateDigest:
		return s.onDigest(c, m)
	case *msg.PartitionData:
		return s.onPartition(c, m)
	case *msg.MerkleLeaves:
		return s.onLeaves(c, m)
	case *msg.EntityData:
		return s.onEntityData(c, m)
	case *msg.SyncRequest:
		return s.onSyncRequest(c, m)
	}
	return fmt.Errorf("%w: %v", ErrUnexpected, m.Type())
}

// onSyncRequest answers a SyncRequest: the roster at most once per five
// frames (an honest client asks at most once per ten), a full state at
// most once per RejoinInterval.
func (s *Server) onSyncRequest(c *client, m *msg.SyncRequest) error {
	if m.What&(msg.SyncClientList|msg.SyncReliability) != 0 {
		if c.lastRoster != 0 && s.next-c.lastRoster < 5 {
			s.offend(c, OffenceFlood)
			return ErrThrottled
		}
		c.lastRoster = s.next
	}
	if m.What&msg.SyncClientList != 0 {
		s.publishList(false)
		s.send(c.id, &msg.ClientListUpdate{Version: s.listVersion, Clients: s.list})
	}
	if m.What&msg.SyncReliability != 0 {
		t := s.rel.Table()
		s.send(c.id, &t)
	}
	if m.What&msg.SyncFullState != 0 && c.state == StateActive {
		if r := c.recovering; r != nil && r.corrected && r.cp != nil {
			// A correction did not verify at the client: its source is
			// left out of sourcing for a while (the client may lie, so
			// no score changes).
			s.distrust(r.cp.provider)
		}
		if c.lastResync != 0 && s.now-c.lastResync < s.cfg.RejoinInterval {
			s.offend(c, OffenceFlood)
			return ErrThrottled
		}
		c.lastResync = s.now
		s.resync(c)
	}
	return nil
}

// resync sends an ACTIVE client back to SYNCING for a full state.
func (s *Server) resync(c *client) {
	if c.recovering != nil {
		c.recovering.abandon()
		c.recovering = nil
	}
	c.lateJoinAt = s.now
	c.state = StateSyncing
	s.resyncs = append(s.resyncs, c.id)
	if i, ok := slices.BinarySearch(s.list, c.id); ok {
		s.list = slices.Delete(slices.Clone(s.list), i, i+1)
		s.listDirty = true
	}
	s.needState(c)
}

// NextDeadline is when Tick must next be called.
func (s *Server) NextDeadline() time.Duration {
	d := s.nextAt
	for _, f := range s.frames {
		if f.stage != closed {
			d = min(d, f.deadline())
		}
	}
	return d
}

// Tick advances the clock: it closes the collection of frames whose time
// is up, broadcasts the frames that are due, and times out silent clients
// and stalled recoveries.
func (s *Server) Tick(now time.Duration) {
	s.advance(now)
	for {
		s.closeFrames()
		if !s.started && len(s.clients) == 0 {
			s.nextAt = s.now + s.interval
			return
		}
		if s.nextAt > s.now {
			return
		}
		s.broadcastTick()
	}
}

func (s *Server) send(to uint32, m msg.Message) {
	s.out = append(s.out, Envelope{To: to, Msg: m})
}

func (s *Server) broadcast(m msg.Message) {
	s.out = append(s.out, Envelope{Broadcast: true, Msg: m})
}

func (s *Server) emit(e Event) { s.evs = append(s.evs, e) }

// HasReady reports whether Ready would return anything.
func (s *Server) HasReady() bool { return len(s.out) > 0 || len(s.evs) > 0 }

// Ready returns what the core produced since the last Advance.
func (s *Server) Ready() Ready { return Ready{Messages: s.out, Events: s.evs} }

// Advance releases what the last Ready held.
func (s *Server) Advance(rd Ready) {
	n, m := len(rd.Messages), len(rd.Events)
	s.out = append(s.out[:0], s.out[n:]...)
	s.evs = append(s.evs[:0], s.evs[m:]...)
}

// sortedClients is the clients in ascending id order, for the loops whose
// order shows in what the core sends.
func (s *Server) sortedClients() []*client {
	out := make([]*client, 0, len(s.clients))
	for _, c := range s.clients {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *client) int { return cmpU32(a.id, b.id) })
	return out
}
