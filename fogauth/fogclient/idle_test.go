package fogclient_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/internal/roomtest"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
)

// TestSilentServerEndsClients: a server that seats a player and a
// spectator, starts their match and then never sends the MatchEnd nor
// closes (roomtest.Silent: the transport stays up) cannot hold them:
// PlayBot and Watch return on the clients' idle timeout, in virtual time,
// and the client's error says so. With the MatchEnd sent (and still no
// close) they return on it at once.
func TestSilentServerEndsClients(t *testing.T) {
	start := fogauth.AppendMatchStart(nil, fogauth.MatchStart{TickRate: 20, Players: 1, UnitsPerPlayer: 1, MapSize: 64})
	for _, c := range []struct{ spectator, matchEnd bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		spectator := c.spectator
		synctest.Test(t, func(t *testing.T) {
			accept := join.JoinAccepted{Player: 1, RoomSize: 1, TickRate: 20, NetworkModel: room.FogAuthoritative}
			if spectator {
				accept.Player = 0
			}
			msgs := [][]byte{start, fogauth.AppendStateUpdateHeader(nil, 1, accept.Player, 0)}
			if c.matchEnd {
				msgs = append(msgs, fogauth.AppendMatchEnd(nil, fogauth.MatchEnd{}))
			}
			dial := roomtest.Silent(t, accept, msgs...)
			conn, err := dial(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			const idle = 5 * time.Second
			cfg := fogclient.Config{IdleTimeout: idle}
			var cl *fogclient.Client
			if spectator {
				cl, err = fogclient.Spectate(t.Context(), conn, "silent", cfg)
			} else {
				cl, err = fogclient.Join(t.Context(), conn, "silent", 1, cfg)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			began := time.Now()
			if spectator {
				fogclient.Watch(t.Context(), cl)
			} else {
				fogclient.PlayBot(t.Context(), cl, idleMind{}, 0)
			}
			waited := time.Since(began)
			if c.matchEnd {
				if _, _, ok := cl.End(); !ok || waited >= idle || cl.Err() != nil {
					t.Errorf("spectator %v: after the MatchEnd the client waited %v, ended %v, error %v", spectator, waited, ok, cl.Err())
				}
				return
			}
			if waited < idle || waited > idle+idle/4 {
				t.Errorf("spectator %v: the client ended after %v of silence, want %v", spectator, waited, idle)
			}
			if err := cl.Err(); !errors.Is(err, join.ErrIdle) {
				t.Errorf("spectator %v: client error %v, want join.ErrIdle", spectator, err)
			}
			if cl.Status() != fogclient.StatusDisconnected {
				t.Errorf("spectator %v: status %v", spectator, cl.Status())
			}
		})
	}
}

// idleMind gives no orders.
type idleMind struct{}

func (idleMind) Orders(_ fogclient.World, _ uint64, dst []protocol.TimestampedOrder) []protocol.TimestampedOrder {
	return dst
}
