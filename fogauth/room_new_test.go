package fogauth

import (
	"errors"
	"testing"

	"github.com/tickwire/tickwire/protocol"
)

// seats is a game of n seats that New may host: only its size and its
// target filter are used before the first tick.
type seats struct {
	Game
	n int
}

func (g seats) Players() int { return g.n }

func (seats) SetTargetFilter(func(protocol.PlayerID, *protocol.EntityState) bool) {}

// TestNewPlayerBounds: a room hosts games of 1..MaxPlayers seats and
// refuses one of none or of MaxPlayers+1 with ErrPlayer.
func TestNewPlayerBounds(t *testing.T) {
	for n, ok := range map[int]bool{-1: false, 0: false, 1: true, MaxPlayers: true, MaxPlayers + 1: false} {
		_, err := New(Config{}, seats{n: n}, 0)
		if ok && err != nil {
			t.Errorf("%d seats: %v", n, err)
		}
		if !ok && !errors.Is(err, ErrPlayer) {
			t.Errorf("%d seats: err %v, want ErrPlayer", n, err)
		}
	}
}
