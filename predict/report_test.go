package predict_test

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/sim/action"
)

// TestCorrectionReports: over a lossy path with players shooting each
// other, every client's corrections reach the server in its
// CorrectionReports: the server's copy is one the client sent (never
// ahead of the client's own figures, bucket by bucket) and not far
// behind, and the distribution counts corrections only.
func TestCorrectionReports(t *testing.T) {
	imp := impairment{delay: 50 * time.Millisecond, jitter: 10 * time.Millisecond, loss: 0.02}
	run := playSim(t, 4, imp, 30*time.Second, predict.ServerConfig{}, action.Config{})
	total := 0
	for i, c := range run.clients {
		tel := c.Telemetry()
		rep, ok := run.room.srv.CorrectionReport(c.Player())
		if tel.Corrections == 0 {
			continue
		}
		if !ok {
			t.Fatalf("client %d made %d corrections and reported none", i+1, tel.Corrections)
		}
		if rep.Player != c.Player() || rep.Corrections > tel.Corrections || rep.HardSnaps > tel.HardSnaps || 2*rep.Corrections < tel.Corrections {
			t.Fatalf("client %d: reported %+v, its telemetry %d corrections, %d hard snaps", i+1, rep, tel.Corrections, tel.HardSnaps)
		}
		var in, all uint64
		for _, n := range rep.Errors {
			in += n
		}
		for _, n := range tel.CorrectionError.Buckets() {
			all += n
		}
		if in == 0 || in > rep.Corrections || in > all {
			t.Fatalf("client %d: %d corrections in the reported distribution, %d reported, %d measured", i+1, in, rep.Corrections, all)
		}
		total += int(rep.Corrections)
	}
	if total == 0 {
		t.Fatal("no client was corrected: the test shows nothing")
	}
}
