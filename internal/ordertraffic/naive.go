package ordertraffic

import "github.com/tickwire/tickwire/protocol"

// Sizes of the naive fixed-width records (see the package documentation).
const (
	naiveHeader = 8 + 2 + 4 + 4 // tick, player, sub-tick, variant
	naivePos    = 3 * 4
	naiveLen    = 8 // a sequence length
)

// NaiveBytes is the size of ticks in the naive fixed-width baseline, with
// one explicit empty record for each of players that has no order in a tick.
func NaiveBytes(ticks []protocol.TickOrders, players int) int {
	total := 0
	has := make([]bool, players)
	for i := range ticks {
		clear(has)
		for _, o := range ticks[i].Orders {
			if int(o.Player) < players {
				has[o.Player] = true
			}
			total += naiveHeader + naiveBody(o.Order)
		}
		for _, h := range has {
			if !h {
				total += naiveHeader
			}
		}
	}
	return total
}

func naiveBody(o protocol.PlayerOrder) int {
	switch v := o.(type) {
	case protocol.Move:
		return naiveLen + 4*len(v.Units) + naivePos
	case protocol.Attack:
		n := naiveLen + 4*len(v.Units) + 4 // units, target variant
		if v.Target.Kind == protocol.TargetEntity {
			return n + 4
		}
		return n + naivePos
	case protocol.Build:
		return 2 + naivePos
	case protocol.SetRallyPoint:
		return 4 + naivePos
	case protocol.Sell:
		return 4
	case protocol.Custom:
		return 2 + naiveLen + len(v.Payload)
	}
	return 0
}
