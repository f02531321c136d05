package fogserver

import (
	"fmt"
	"testing"

	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/rtsgame"
)

// TestFinalHashIsTheGamesStateHash: a room records the hosted game's
// state hash as the match's final hash when the game has one, and none
// otherwise.
func TestFinalHashIsTheGamesStateHash(t *testing.T) {
	g, _, err := rtsgame.Start(2, 5, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := finalHash(g), fmt.Sprintf("%016x", g.Sim().StateHash()); got != want || got == "" {
		t.Fatalf("final hash %q, want %q", got, want)
	}
	if got := finalHash(noHash{g}); got != "" {
		t.Fatalf("final hash %q of a game without one, want none", got)
	}
}

// noHash hides a game's StateHash.
type noHash struct{ fogauth.Game }
