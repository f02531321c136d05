package predict

import "errors"

// PlayerID numbers a player of a room, 1..255 (the seed's clientId).
type PlayerID uint8

// EntityID names an entity of the game. Authoritative ids are positive;
// a predicting client's provisional spawns are negative.
type EntityID int32

// Input is one client's intent for one tick: the seed's InputMessage
// entry. Movement and view are quantised (move -127..127 per axis, yaw in
// 1/65536 turns, pitch in 1/65536 turns signed) so that the client's
// prediction and the server step the very same values.
type Input struct {
	Sequence     uint32 // inputSequence, 1, 2, 3, ... per client
	ClientTick   uint64 // the client's predicted tick this input was applied at
	IntendedTick uint64 // intendedServerTick: the server tick it is meant for
	TimestampMs  int64  // client clock, for diagnostics only
	MoveX, MoveY int8
	Jump, Sprint bool
	Yaw          uint16
	Pitch        int16
	Actions      []Action
}

// Action is a discrete intent inside an Input (a cast, a use, ...).
type Action struct {
	ID                  uint8  // game-defined action kind (the seed's actionId)
	Sequence            uint32 // actionSequence, per client, for idempotency
	StartedAtClientTick uint64
	Params              []byte // game-defined, at most MaxActionParams bytes
}

// PlayerInput is an Input addressed to a player, as a tick consumes it.
type PlayerInput struct {
	Player PlayerID
	Input  *Input
}

// EventKind says what predict must know about a GameEvent; everything else
// about it is the game's (Type).
type EventKind uint8

// Event kinds.
const (
	// EventOther is an effect to present (a hit, a death, ...).
	EventOther EventKind = iota
	// EventSpawn: the action ActionSeq of Player created Entity. It maps a
	// client's provisional entity to the authoritative one.
	EventSpawn
	// EventRejected: the action ActionSeq of Player was refused; Value is
	// the reason (the game's, or predict's with Type TypeRefused). Every
	// action a server takes ends with an EventRejected or the EventDespawn
	// of what it spawned: that is how a client knows the action's effects
	// are complete.
	EventRejected
	// EventDespawn: Entity left the game.
	EventDespawn
)

// TypeRefused is the Type of the EventRejected events predict itself
// publishes for actions the server will never apply; a Game's own event
// types start at 1. Their Value is one of the Refused reasons.
const TypeRefused uint8 = 0

// Reasons an action was refused by the server (Value of an EventRejected
// of TypeRefused).
const (
	RefusedLate      int32 = 1 + iota // its input arrived after its tick under LateReject
	RefusedRate                       // its input exceeded the input rate
	RefusedQueueFull                  // its input overflowed the queue
	RefusedInvalid                    // its input failed the game's ValidateInput
)

// GameEvent is a discrete result of a tick. Target, when set, is an entity
// the event affected (a hit's victim). An event targeting a player's
// entity that another player caused, or that no action caused (ActionSeq
// 0: a respawn), is an interaction, which explains a correction.
type GameEvent struct {
	Kind      EventKind
	Type      uint8 // game-defined event type
	Player    PlayerID
	ActionSeq uint32
	Entity    EntityID
	Target    EntityID
	Value     int32
}

// Record is one entity's encoded state inside a snapshot.
type Record struct {
	ID   EntityID
	Data []byte
}

// EntityView is what a renderer and the correction metrics need of an
// entity: where it is, in world units.
type EntityView struct {
	ID    EntityID
	Owner PlayerID
	Pos   [3]float64
	Vel   [3]float64 // world units per tick
}

// Game is the deterministic simulation predict drives: the server's
// authoritative world and every client's predicted copy run the same Game
// through SimulationCore. Package sim/action, through predict/actiongame,
// is the reference implementation.
type Game interface {
	// Tick is the number of ticks stepped.
	Tick() uint64
	// Join adds player p; Leave removes it.
	Join(p PlayerID) error
	Leave(p PlayerID)
	// Step advances one tick with at most one input per player; a player
	// without one keeps its held intent. Events are appended to ev.
	Step(inputs []PlayerInput, ev []GameEvent) []GameEvent
	// SetProvisional makes later spawns take provisional (negative) ids,
	// the same id each time the same action is replayed.
	SetProvisional(on bool)

	// Snapshot appends the canonical state; Restore replaces the state
	// with a snapshot, validating it whole first. StateHash hashes it.
	Snapshot(dst []byte) []byte
	Restore(b []byte) error
	StateHash() uint64
	// Split cuts a snapshot into its world header and its entity records
	// (ascending id, aliasing b); Assemble is its inverse. Deltas are
	// computed record by record.
	Split(b []byte, recs []Record) (header []byte, _ []Record, err error)
	Assemble(dst, header []byte, recs []Record) []byte

	// PlayerEntity is the entity player p controls.
	PlayerEntity(p PlayerID) (EntityID, bool)
	// AppendRecord appends entity id's record (as in a snapshot) to dst.
	AppendRecord(dst []byte, id EntityID) ([]byte, bool)
	// View is entity id's presentation; Entities appends every entity's,
	// ascending id.
	View(id EntityID) (EntityView, bool)
	Entities(dst []EntityView) []EntityView
	// ValidateInput checks an input's intent against the game's limits
	// (movement vector length, known action kinds, parameter sizes). The
	// rules enforce cooldowns and resources when the input is applied.
	ValidateInput(in *Input) error
}

// Errors.
var (
	ErrMalformed  = errors.New("predict: malformed message")
	ErrRejected   = errors.New("predict: input rejected")
	ErrUnknown    = errors.New("predict: unknown player")
	ErrRoomFull   = errors.New("predict: room full")
	ErrNoBaseline = errors.New("predict: delta against a baseline the client does not hold")
	ErrStaleSnap  = errors.New("predict: stale snapshot")
	ErrNotJoined  = errors.New("predict: no hello from the server yet")
)
