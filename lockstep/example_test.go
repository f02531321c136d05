package lockstep_test

import (
	"fmt"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/protocol"
)

// counter is a deterministic simulation: it adds up the first byte of
// every game order (protocol.Custom) it is given.
type counter struct{ total uint64 }

func (c *counter) ApplyTick(t protocol.TickOrders) error {
	for _, o := range t.Orders {
		if g, ok := o.Order.(protocol.Custom); ok && len(g.Payload) > 0 {
			c.total += uint64(g.Payload[0])
		}
	}
	return nil
}

func (c *counter) StateHash() uint64 { return c.total }

// input gives one game order a tick, worth the tick's number.
type input struct{}

func (input) Orders(tick uint64) []protocol.TimestampedOrder {
	return []protocol.TimestampedOrder{{Player: 1, Order: protocol.Custom{Kind: 1, Payload: []byte{byte(tick)}}}}
}

// A GameLoop drives any Simulation with any NetworkModel: here the
// single-player LocalNetwork; a RelayClient (JoinRelay) plays the same
// loop against other players.
func ExampleGameLoop() {
	sim := &counter{}
	loop := lockstep.GameLoop{Sim: sim, Net: &lockstep.LocalNetwork{}, Input: input{}}
	for loop.Applied() < 5 {
		if _, err := loop.Step(); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println("ticks:", loop.Applied(), "total:", sim.total)
	// Output: ticks: 5 total: 10
}
