package relay_test

import (
	"testing"

	"github.com/tickwire/tickwire/internal/relaybench"
)

// BenchmarkCoreTick is the cost of one game tick of a 4-player match with
// the full default filter chain; see package relaybench.
func BenchmarkCoreTick(b *testing.B) { relaybench.CoreTick(b) }
