package ordertraffic

import (
	"testing"

	"github.com/tickwire/tickwire/protocol"
)

// TestGenerateAnyPlayerCount sweeps the player counts from 1 (no enemy to
// attack: every Attack targets the ground) to 16: Generate never panics,
// every order belongs to a player of the model, and an attacked entity is
// never the attacker's own.
func TestGenerateAnyPlayerCount(t *testing.T) {
	for players := 1; players <= 16; players++ {
		for _, tick := range Generate(Model{Seed: uint64(players), Players: players, Ticks: 600}) {
			for _, o := range tick.Orders {
				if int(o.Player) >= players {
					t.Fatalf("%d players: an order of player %d", players, o.Player)
				}
				a, ok := o.Order.(protocol.Attack)
				if !ok || a.Target.Kind != protocol.TargetEntity {
					continue
				}
				if owner := (int(a.Target.Entity) - 1) / 1000; owner == int(o.Player) || owner >= players {
					t.Fatalf("%d players: player %d attacks entity %d of player %d", players, o.Player, a.Target.Entity, owner)
				}
			}
		}
	}
}
