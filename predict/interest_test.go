package predict_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/sim/action"
)

// interestRules is a map large enough for interest to matter: 160 units
// a side (the default is 48), up to 64 players.
var interestRules = action.Config{ArenaSize: 160, MaxPlayers: 64}

var interestOn = predict.InterestConfig{Radius: 24}

// downPerClient plays players bots for d and returns the mean bytes per
// second each client received, and the run.
func downPerClient(t testing.TB, players int, interest predict.InterestConfig, d time.Duration) (float64, *simRun) {
	cfg := predict.ServerConfig{MaxPlayers: players, Interest: interest}
	run := playSim(t, players, impairment{delay: 50 * time.Millisecond}, d, cfg, interestRules)
	var down uint64
	for _, l := range run.room.down {
		down += l.bytes
	}
	return float64(down) / float64(players) / d.Seconds(), run
}

// TestInterestParity: with interest management on a large map, clients
// receive a fraction of the world, yet prediction holds: every correction
// has its cause (a hit by a projectile it was sent, on its line of fire),
// parity is checked on every snapshot, and every effect plays exactly
// once against the server's events.
func TestInterestParity(t *testing.T) {
	d := 6 * time.Second
	if testing.Short() {
		d = 3 * time.Second
	}
	without, _ := downPerClient(t, 16, predict.InterestConfig{}, d)
	with, run := downPerClient(t, 16, interestOn, d)
	t.Logf("16 players, 160-unit map: %.0f B/client/s down with interest management, %.0f without", with, without)
	if with > without*0.8 {
		t.Fatalf("interest management saved too little: %.0f vs %.0f B/client/s", with, without)
	}
	// The server's own count of what the snapshots would have taken
	// without interest management is of the same order as the real run's.
	st := run.room.srv.Stats()
	if st.SnapshotBytesWorld < 2*st.SnapshotBytes {
		t.Fatalf("snapshots %d bytes, %d without interest management", st.SnapshotBytes, st.SnapshotBytesWorld)
	}
	for i, c := range run.clients {
		tel := c.Telemetry()
		if tel.ByCause[predict.CauseUnexplained] != 0 || tel.ParityChecks < uint64(d.Seconds())*30 {
			t.Fatalf("client %d: %d parity checks, corrections %v", i+1, tel.ParityChecks, tel.ByCause)
		}
		checkExactlyOnce(t, i+1, run.effects[i], run.room.events[c.Player()], c.AnchorTick()-60)
	}
}

// BenchmarkInterest reports the bytes each client receives with and
// without interest management at 16 and 64 players on a 160-unit map,
// 60 Hz, 100 ms RTT, 10 s of virtual time (predict message bytes, no
// transport headers, no zstd). Deterministic; run it with -benchtime 1x.
func BenchmarkInterest(b *testing.B) {
	for _, players := range []int{16, 64} {
		for _, on := range []bool{false, true} {
			name := fmt.Sprintf("players%d/interest=%v", players, on)
			b.Run(name, func(b *testing.B) {
				var cfg predict.InterestConfig
				if on {
					cfg = interestOn
				}
				for b.Loop() {
					down, _ := downPerClient(b, players, cfg, 10*time.Second)
					b.ReportMetric(down, "down-B/client/s")
				}
			})
		}
	}
}
