package lockstepbot

import (
	"encoding/json"
	"time"
)

// PlayerReport is one bot's summary. The JSON names are part of the
// command-line interface.
type PlayerReport struct {
	ID         int    `json:"id"`
	Ticks      uint64 `json:"ticks"`
	OrdersSent int    `json:"orders_sent"`
	LateOrders int    `json:"late_orders"`
	Strikes    int    `json:"strikes"`
	FinalHash  string `json:"final_hash"` // state hash after the last tick, 16 hex digits
	Desyncs    int    `json:"desyncs"`
	// RTTP50MS and RTTP99MS are percentiles of the smoothed round-trip
	// time sampled at every confirmed tick. Percentiles of a bot are the
	// nearest rank, taken from a log-linear histogram (metrics.Histogram)
	// and at most 3.125% above the exact figure.
	RTTP50MS float64 `json:"rtt_p50_ms"`
	RTTP99MS float64 `json:"rtt_p99_ms"`
	// TickGapP99MS is the 99th percentile of the wall time between
	// consecutive confirmed ticks: it shows whether the client stalled.
	TickGapP99MS float64 `json:"tick_gap_p99_ms"`
	// RunAhead is the run-ahead in force at the end, in ticks.
	RunAhead int `json:"run_ahead"`
	// BytesUpPerS and BytesDownPerS are UDP payload bytes per second over
	// the played span (first to last confirmed tick).
	BytesUpPerS   float64 `json:"bytes_up_per_s"`
	BytesDownPerS float64 `json:"bytes_down_per_s"`
	// ClockCorrectionMS is how far the client's estimate of the relay
	// clock moved from its calibration during the match, ClockDriftPPM
	// the measured rate error of the client's clock (positive: it runs
	// fast) and ClockSteps how often the estimate stepped because the
	// clock jumped (lockstep.Diagnostics).
	ClockCorrectionMS float64 `json:"clock_correction_ms"`
	ClockDriftPPM     float64 `json:"clock_drift_ppm"`
	ClockSteps        int     `json:"clock_steps"`
	// Reconnects counts the bot's reconnections (RejoinConfig), and
	// ReconnectMS is the longest, from the drop to caught up and playing
	// (or to the bot's last tick, when it caught up to the end of its
	// match).
	Reconnects  int     `json:"reconnects"`
	ReconnectMS float64 `json:"reconnect_ms"`
	// Observer marks an observer: it watched without a seat (ID 0).
	Observer bool `json:"observer,omitempty"`
	// Certificate is the match's certified result the server sent when
	// the match ended (the JSON `tickwire matches verify` reads), if one
	// came.
	Certificate json.RawMessage `json:"certificate,omitempty"`
	// DebugLevel is the desync debug level the bot played at (the higher
	// of its own and the room's).
	DebugLevel uint8 `json:"debug_level,omitempty"`
	// OrderLog is the bot's order log file (debug level 1 and above).
	OrderLog string `json:"order_log,omitempty"`
	// InjectedDesync is the fault the bot injected, if it did.
	InjectedDesync *InjectedDesync `json:"injected_desync,omitempty"`
	// DesyncReport is the file name of the desync report the relay sent
	// the bot, if any (written to the report directory, if one is set).
	DesyncReport string `json:"desync_report,omitempty"`
	// Error is why the bot stopped early, if it did.
	Error string `json:"error,omitempty"`
	// JoinErr is why the bot never joined: its dial's or its join's
	// error as returned, for the caller to name the cause (a refusal is
	// a *join.JoinError); nil once it joined. Error has its text.
	JoinErr error `json:"-"`
}

// Report is the summary of a run: "tickwire bot --json" prints it.
type Report struct {
	Players []PlayerReport `json:"players"`
	// AllInSync: every bot applied every tick, all final hashes are equal
	// and no desync was reported.
	AllInSync bool `json:"all_in_sync"`
	// NetworkModel is the network model the server asserted when the
	// bots joined (the trust label of the room; "" if none joined).
	NetworkModel string `json:"network_model"`
}

// inSync reports whether the players all finished want ticks with the
// same hash and no desync or error.
func inSync(ps []PlayerReport, want uint64) bool {
	if len(ps) == 0 {
		return false
	}
	for _, p := range ps {
		if p.Error != "" || p.Desyncs != 0 || p.Ticks != want || p.FinalHash != ps[0].FinalHash {
			return false
		}
	}
	return true
}

// ms converts a duration to fractional milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
