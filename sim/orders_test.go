package sim

import (
	"errors"
	"testing"

	"github.com/tickwire/tickwire/protocol"
)

func firstOf(s *Sim, owner protocol.PlayerID, t EntityType) protocol.EntityID {
	for _, e := range s.Entities() {
		if e.Owner == owner && e.Type == t {
			return e.ID
		}
	}
	return 0
}

func TestValidateOrder(t *testing.T) {
	s := newTestSim(t)
	inf, tank := firstOf(s, 1, TypeInfantry), firstOf(s, 2, TypeTank)
	hq1, hq2, bar := firstOf(s, 1, TypeHQ), firstOf(s, 2, TypeHQ), firstOf(s, 1, TypeBarracks)
	derrick := firstOf(s, Neutral, TypeOilDerrick)
	open, wall := CellCenter(8, 8), CellCenter(12, 10)
	tooMany := make([]protocol.EntityID, 65)
	for i := range tooMany {
		tooMany[i] = inf
	}
	cases := []struct {
		name   string
		player protocol.PlayerID
		order  protocol.PlayerOrder
		want   OrderValidity
	}{
		{"idle", 1, protocol.Idle{}, Valid},
		{"unknown player", 3, protocol.Idle{}, RejectUnknownPlayer},
		{"neutral player", 0, protocol.Idle{}, RejectUnknownPlayer},
		{"move", 1, protocol.Move{Units: []protocol.EntityID{inf}, Target: open}, Valid},
		{"move dead ids only", 1, protocol.Move{Units: []protocol.EntityID{9999}, Target: open}, RejectNoUnits},
		{"move dead and alive", 1, protocol.Move{Units: []protocol.EntityID{9999, inf}, Target: open}, Valid},
		{"move empty", 1, protocol.Move{Target: open}, RejectNoUnits},
		{"move enemy unit", 1, protocol.Move{Units: []protocol.EntityID{inf, tank}, Target: open}, RejectNotOwner},
		{"move structure", 1, protocol.Move{Units: []protocol.EntityID{hq1}, Target: open}, RejectNotCapable},
		{"move too many", 1, protocol.Move{Units: tooMany, Target: open}, RejectTooManyUnits},
		{"move into rock", 1, protocol.Move{Units: []protocol.EntityID{inf}, Target: wall}, RejectBlocked},
		{"move off map", 1, protocol.Move{Units: []protocol.EntityID{inf}, Target: protocol.WorldPos{X: -1}}, RejectOutOfBounds},
		{"attack entity", 1, protocol.Attack{Units: []protocol.EntityID{inf}, Target: protocol.Target{Kind: protocol.TargetEntity, Entity: hq2}}, Valid},
		{"attack own", 1, protocol.Attack{Units: []protocol.EntityID{inf}, Target: protocol.Target{Kind: protocol.TargetEntity, Entity: hq1}}, RejectInvalidTarget},
		{"attack neutral", 1, protocol.Attack{Units: []protocol.EntityID{inf}, Target: protocol.Target{Kind: protocol.TargetEntity, Entity: derrick}}, RejectInvalidTarget},
		{"attack missing", 1, protocol.Attack{Units: []protocol.EntityID{inf}, Target: protocol.Target{Kind: protocol.TargetEntity, Entity: 9999}}, RejectInvalidTarget},
		{"attack ground", 1, protocol.Attack{Units: []protocol.EntityID{inf}, Target: protocol.Target{Kind: protocol.TargetGround, Pos: open}}, Valid},
		{"attack bad kind", 1, protocol.Attack{Units: []protocol.EntityID{inf}, Target: protocol.Target{Kind: 7}}, RejectInvalidTarget},
		{"build", 1, protocol.Build{Structure: protocol.StructureType(TypeTurret), Pos: CellCenter(6, 3)}, Valid},
		{"build HQ", 1, protocol.Build{Structure: protocol.StructureType(TypeHQ), Pos: CellCenter(6, 3)}, RejectNotCapable},
		{"build unknown", 1, protocol.Build{Structure: 999, Pos: CellCenter(6, 3)}, RejectNotCapable},
		{"build far", 1, protocol.Build{Structure: protocol.StructureType(TypeTurret), Pos: CellCenter(20, 3)}, RejectTooFar},
		{"build on structure", 1, protocol.Build{Structure: protocol.StructureType(TypeTurret), Pos: CellCenter(5, 3)}, RejectBlocked},
		{"build factory", 1, protocol.Build{Structure: protocol.StructureType(TypeFactory), Pos: CellCenter(6, 3)}, Valid},
		{"rally", 1, protocol.SetRallyPoint{Building: bar, Pos: open}, Valid},
		{"rally on HQ", 1, protocol.SetRallyPoint{Building: hq1, Pos: open}, RejectNotCapable},
		{"rally enemy", 2, protocol.SetRallyPoint{Building: bar, Pos: open}, RejectNotOwner},
		{"sell", 1, protocol.Sell{Building: bar}, Valid},
		{"sell enemy", 2, protocol.Sell{Building: bar}, RejectNotOwner},
		{"sell unit", 1, protocol.Sell{Building: inf}, RejectNotCapable},
		{"custom", 1, protocol.Custom{Kind: 1}, RejectUnsupported},
	}
	for _, c := range cases {
		before := s.StateHash()
		if got := s.ValidateOrder(c.player, c.order); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if s.StateHash() != before {
			t.Errorf("%s: validation changed the state", c.name)
		}
	}
	s.credits[0] = 10
	if got := s.ValidateOrder(1, protocol.Build{Structure: protocol.StructureType(TypeTurret), Pos: CellCenter(6, 3)}); got != RejectInsufficientFund {
		t.Errorf("poor build: %v", got)
	}
}

// TestInvalidOrdersIgnored checks that rejected orders change nothing: a
// tick of cheating orders ends in the same state as an empty tick.
func TestInvalidOrdersIgnored(t *testing.T) {
	a, b := newTestSim(t), newTestSim(t)
	tank, bar := firstOf(a, 2, TypeTank), firstOf(a, 1, TypeBarracks)
	cheats := []protocol.TimestampedOrder{
		{Player: 1, Order: protocol.Move{Units: []protocol.EntityID{tank}, Target: CellCenter(1, 1)}},
		{Player: 2, Order: protocol.Sell{Building: bar}},
		{Player: 9, Order: protocol.Idle{}},
		{Player: 1, Order: protocol.Custom{Kind: 3, Payload: []byte{1}}},
	}
	if err := a.ApplyTick(protocol.TickOrders{Tick: 0, Orders: cheats}); err != nil {
		t.Fatal(err)
	}
	if err := b.ApplyTick(protocol.TickOrders{Tick: 0}); err != nil {
		t.Fatal(err)
	}
	if a.StateHash() != b.StateHash() {
		t.Fatal("rejected orders changed the simulation")
	}
}

func TestSellRefundsOnce(t *testing.T) {
	s := newTestSim(t)
	bar := firstOf(s, 1, TypeBarracks)
	sell := protocol.TimestampedOrder{Player: 1, Order: protocol.Sell{Building: bar}}
	before := s.Credits(1)
	if err := s.ApplyTick(protocol.TickOrders{Tick: 0, Orders: []protocol.TimestampedOrder{sell, sell}}); err != nil {
		t.Fatal(err)
	}
	want := before + rulesOf(TypeBarracks).Cost/2 + s.cfg.IncomePerTick
	if got := s.Credits(1); got != want {
		t.Fatalf("credits %d, want %d", got, want)
	}
	if _, ok := s.EntityState(bar); ok {
		t.Fatal("sold building still exists")
	}
}

func TestApplyTickSequence(t *testing.T) {
	s := newTestSim(t)
	if err := s.ApplyTick(protocol.TickOrders{Tick: 1}); !errors.Is(err, ErrTickSequence) {
		t.Fatalf("tick 1 first: %v", err)
	}
	if err := s.ApplyTick(protocol.TickOrders{Tick: 0}); err != nil || s.Tick() != 1 {
		t.Fatalf("tick 0: %v, now at %d", err, s.Tick())
	}
}

func TestBuildCompletes(t *testing.T) {
	s := newTestSim(t)
	build := protocol.TimestampedOrder{Player: 1, Order: protocol.Build{Structure: protocol.StructureType(TypeTurret), Pos: CellCenter(6, 2)}}
	if err := s.ApplyTick(protocol.TickOrders{Tick: 0, Orders: []protocol.TimestampedOrder{build}}); err != nil {
		t.Fatal(err)
	}
	id := s.nextID - 1
	e, _ := s.EntityState(id)
	if e.Type != TypeTurret || e.Flags&FlagUnderConstruction == 0 {
		t.Fatalf("new structure %+v", e)
	}
	for range rulesOf(TypeTurret).BuildTime {
		s.ApplyTick(protocol.TickOrders{Tick: s.Tick()})
	}
	e, _ = s.EntityState(id)
	if e.Flags&FlagUnderConstruction != 0 || e.Health != e.HealthMax {
		t.Fatalf("structure not finished after its build time: %+v", e)
	}
}
