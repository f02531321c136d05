package protocol

import "strconv"

// OrderKind is the wire type number of a PlayerOrder.
type OrderKind uint8

// The order kinds. Their numbers are part of the wire format of NativeCodec
// version 1 and never change; new kinds are appended.
const (
	KindIdle OrderKind = iota
	KindMove
	KindAttack
	KindBuild
	KindSetRallyPoint
	KindSell
	KindCustom
	numOrderKinds
)

var orderKindNames = [numOrderKinds]string{"Idle", "Move", "Attack", "Build", "SetRallyPoint", "Sell", "Custom"}

// String returns the order kind's name.
func (k OrderKind) String() string {
	if k < numOrderKinds {
		return orderKindNames[k]
	}
	return "OrderKind(" + strconv.Itoa(int(k)) + ")"
}

// PlayerOrder is one command a player gives. The set of implementations is
// closed: Idle, Move, Attack, Build, SetRallyPoint, Sell and Custom, the
// extension point for game-specific orders.
type PlayerOrder interface {
	// OrderKind reports the variant.
	OrderKind() OrderKind
	isPlayerOrder()
}

// Idle is the explicit no-op. The relay substitutes it for a player whose
// orders missed the tick deadline, keeping the player present in the tick.
type Idle struct{}

// Move sends units toward a position.
type Move struct {
	Units  []EntityID
	Target WorldPos
}

// Attack makes units approach and fire at a target.
type Attack struct {
	Units  []EntityID
	Target Target
}

// Build places a structure.
type Build struct {
	Structure StructureType
	Pos       WorldPos
}

// SetRallyPoint sets where a production building sends new units.
type SetRallyPoint struct {
	Building EntityID
	Pos      WorldPos
}

// Sell removes a building for a refund.
type Sell struct {
	Building EntityID
}

// Custom carries a game-specific order: Kind is the game's own order number
// and Payload its encoding, opaque to tickwire.
type Custom struct {
	Kind    uint16
	Payload []byte
}

func (Idle) OrderKind() OrderKind          { return KindIdle }
func (Move) OrderKind() OrderKind          { return KindMove }
func (Attack) OrderKind() OrderKind        { return KindAttack }
func (Build) OrderKind() OrderKind         { return KindBuild }
func (SetRallyPoint) OrderKind() OrderKind { return KindSetRallyPoint }
func (Sell) OrderKind() OrderKind          { return KindSell }
func (Custom) OrderKind() OrderKind        { return KindCustom }

func (Idle) isPlayerOrder()          {}
func (Move) isPlayerOrder()          {}
func (Attack) isPlayerOrder()        {}
func (Build) isPlayerOrder()         {}
func (SetRallyPoint) isPlayerOrder() {}
func (Sell) isPlayerOrder()          {}
func (Custom) isPlayerOrder()        {}
