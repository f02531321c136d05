package predictbot

import (
	"encoding/json"
	"time"

	"github.com/tickwire/tickwire/metrics"
	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/server/admin"
)

// Player is one prediction client's summary (bot and demo --json).
type Player struct {
	ID                   int                       `json:"id"`
	Ticks                uint64                    `json:"ticks"`
	InputsSent           uint64                    `json:"inputs_sent"`
	InputsAcked          uint64                    `json:"inputs_acked"`
	Corrections          uint64                    `json:"corrections"`
	CorrectionsPerS      float64                   `json:"corrections_per_s"`
	CorrectionsByCause   [predict.NumCauses]uint64 `json:"corrections_by_cause"` // late input, interaction, unexplained, clamped input
	HardSnaps            uint64                    `json:"hard_snaps"`
	MeanError            float64                   `json:"mean_error"`
	P99Error             float64                   `json:"p99_error"`
	ReplayDepthP99       float64                   `json:"replay_depth_p99"`
	InputToAckP50MS      float64                   `json:"input_to_ack_p50_ms"`
	InputToAckP99MS      float64                   `json:"input_to_ack_p99_ms"`
	ProvisionalSpawns    uint64                    `json:"provisional_spawns"`
	ProvisionalMapped    uint64                    `json:"provisional_mapped"`
	ProvisionalDiscarded uint64                    `json:"provisional_discarded"`
	BytesUpPerS          float64                   `json:"bytes_up_per_s"`
	BytesDownPerS        float64                   `json:"bytes_down_per_s"`
	ParityChecks         uint64                    `json:"parity_checks"`
	RTTMS                float64                   `json:"rtt_ms"`
	ServerTickLag        float64                   `json:"server_tick_lag"` // predicted tick minus estimated server tick, at the end
	// The two distributions: positional error at each correction (world
	// units) and inputs replayed per snapshot, as non-empty buckets.
	CorrectionErrorHist []HistBucket `json:"correction_error_hist"`
	ReplayDepthHist     []HistBucket `json:"replay_depth_hist"`
	// Certificate is the match's certified result the server sent when
	// the match ended (the JSON `tickwire matches verify` reads), if one
	// came.
	Certificate json.RawMessage `json:"certificate,omitempty"`
	Error       string          `json:"error,omitempty"`
}

// HistBucket is one bucket of a published distribution: Count samples at
// most LE (and at least the previous bucket's LE); the last LE is the
// largest sample.
type HistBucket struct {
	LE    float64 `json:"le"`
	Count uint64  `json:"count"`
}

// buckets lists h's non-empty buckets (metrics.Histogram.Buckets).
func buckets(h *predict.Histogram) []HistBucket {
	out := []HistBucket{}
	for le, c := range h.Buckets() {
		out = append(out, HistBucket{LE: le, Count: c})
	}
	return out
}

// Report is the summary of bot --mode predict and demo --mode
// predict. ParityOK holds when every client checked its prediction
// against the authoritative state and every correction has a cause (with
// --local, a lone client without loss: no correction at all).
type Report struct {
	NetworkModel string   `json:"network_model"`
	Players      []Player `json:"players"`
	ParityOK     bool     `json:"parity_ok"`
	// Interest is the server's view of interest management (demo only,
	// when it is on).
	Interest *Interest `json:"interest,omitempty"`
}

// Interest compares the snapshot bytes the server sent each client
// with interest management to what the same snapshots would have taken
// without it (every entity, deltas against the same baselines).
type Interest struct {
	Radius                    float64 `json:"radius"`
	Arena                     int     `json:"arena"`
	SnapshotBytesPerClientS   float64 `json:"snapshot_bytes_per_client_s"`
	WithoutInterestPerClientS float64 `json:"without_interest_bytes_per_client_s"`
}

// InterestFigures reads the prediction model's byte counters (its
// Metrics) after a demo of players over d.
func InterestFigures(ms []admin.Metric, radius float64, arena, players int, d time.Duration) *Interest {
	r := &Interest{Radius: radius, Arena: arena}
	per := float64(players) * max(d.Seconds(), 1e-3)
	for _, m := range ms {
		switch m.Name {
		case "tickwire_prediction_snapshot_bytes_total":
			r.SnapshotBytesPerClientS = m.Value / per
		case "tickwire_prediction_world_snapshot_bytes_total":
			r.WithoutInterestPerClientS = m.Value / per
		}
	}
	return r
}

// summarise turns a client's telemetry over d of play into its summary;
// up and down are the bytes it sent and received. Over no play (d 0: it
// failed before it predicted), the per-second figures are 0.
func summarise(id int, t predict.Telemetry, d time.Duration, up, down uint64) Player {
	return Player{
		ID: id, Ticks: t.Ticks, InputsSent: t.InputsSent, InputsAcked: t.InputsAcked,
		Corrections: t.Corrections, CorrectionsPerS: metrics.PerSecond(t.Corrections, d), CorrectionsByCause: t.ByCause,
		HardSnaps: t.HardSnaps, MeanError: t.CorrectionError.Mean(), P99Error: t.CorrectionError.Quantile(0.99),
		ReplayDepthP99:  t.ReplayDepth.Quantile(0.99),
		InputToAckP50MS: t.InputToAck.Quantile(0.5), InputToAckP99MS: t.InputToAck.Quantile(0.99),
		ProvisionalSpawns: t.ProvisionalSpawns, ProvisionalMapped: t.ProvisionalMapped, ProvisionalDiscarded: t.ProvisionalDiscarded,
		BytesUpPerS: metrics.PerSecond(up, d), BytesDownPerS: metrics.PerSecond(down, d),
		ParityChecks: t.ParityChecks, RTTMS: float64(t.RTT) / float64(time.Millisecond), ServerTickLag: t.ServerTickLag,
		CorrectionErrorHist: buckets(&t.CorrectionError), ReplayDepthHist: buckets(&t.ReplayDepth),
	}
}

// parityHolds is the verdict on one client: it checked its prediction and
// has no correction without a cause (lone: no correction at all).
func parityHolds(t predict.Telemetry, lone bool) bool {
	if t.ParityChecks == 0 || t.ByCause[predict.CauseUnexplained] != 0 {
		return false
	}
	return !lone || t.Corrections == 0
}
