//go:build js && wasm

package main

import (
	"fmt"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/transport"
)

// stats are the overlay's figures, also written as JSON into the element
// tw-stats. The first seven names are fixed (checked from outside).
type stats struct {
	RTTMs          float64 `json:"rtt_ms"`
	Corrections    uint64  `json:"corrections"`
	HardSnaps      uint64  `json:"hard_snaps"`
	Tick           uint64  `json:"tick"`
	PlayersSeen    int     `json:"players_seen"`
	BytesUpPerS    float64 `json:"bytes_up_per_s"`
	BytesDownPerS  float64 `json:"bytes_down_per_s"`
	ServerTickLag  float64 `json:"server_tick_lag"`
	CorrectionsPS  float64 `json:"corrections_per_s"`
	LastCorrection float64 `json:"last_correction"` // world units, mean of the latest corrections
	X              float64 `json:"x"`               // the local player, world units
	Y              float64 `json:"y"`
	Player         int     `json:"player"`
	Deaths         int     `json:"deaths"`     // the local player's, each a respawn teleport (a hard snap)
	LatencyMs      int     `json:"latency_ms"` // added one way by the page's slider
	LossPct        int     `json:"loss_pct"`
	Dropped        uint64  `json:"dropped"`  // messages the added loss dropped
	FrameMs        float64 `json:"frame_ms"` // mean time of prediction + rendering per frame
	Frames         uint64  `json:"frames"`
	// ByCause counts the corrections by what the client holds caused
	// them (predict.Cause names).
	ByCause map[string]uint64 `json:"by_cause"`
}

// meter turns counters into the stats' rates, over the time between two
// samples.
type meter struct {
	at             time.Time
	tel            predict.Telemetry
	conn           transport.Stats
	frames         uint64
	frameTime      time.Duration
	lastCorrection float64
}

// sample fills s from the counters now, and keeps them for the next.
func (m *meter) sample(s *stats, now time.Time, t predict.Telemetry, c transport.Stats, frames uint64, frameTime time.Duration) {
	s.RTTMs = float64(t.RTT) / float64(time.Millisecond)
	s.Corrections, s.HardSnaps, s.Tick = t.Corrections, t.HardSnaps, t.Ticks
	s.ServerTickLag = t.ServerTickLag
	s.Frames = frames
	s.ByCause = make(map[string]uint64)
	for c, n := range t.ByCause {
		if n > 0 {
			s.ByCause[predict.Cause(c).String()] = n
		}
	}
	if n := t.CorrectionError.Count() - m.tel.CorrectionError.Count(); n > 0 {
		m.lastCorrection = (t.CorrectionError.Sum() - m.tel.CorrectionError.Sum()) / float64(n)
	}
	s.LastCorrection = m.lastCorrection
	if dt := now.Sub(m.at).Seconds(); !m.at.IsZero() && dt > 0 {
		s.BytesUpPerS = float64(c.BytesSent-m.conn.BytesSent) / dt
		s.BytesDownPerS = float64(c.BytesReceived-m.conn.BytesReceived) / dt
		s.CorrectionsPS = float64(t.Corrections-m.tel.Corrections) / dt
	}
	if f := frames - m.frames; f > 0 {
		s.FrameMs = float64(frameTime-m.frameTime) / float64(f) / float64(time.Millisecond)
	}
	m.at, m.tel, m.conn, m.frames, m.frameTime = now, t, c, frames, frameTime
}

// overlay is the figures as the page shows them.
func (s *stats) overlay() string {
	return fmt.Sprintf("RTT             %6.1f ms\nserver tick lag %6.1f ticks\ncorrections     %6.1f /s (%d, %d hard)\nlast correction %6.3f units\nbytes up        %6.0f B/s\nbytes down      %6.0f B/s\nframe           %6.2f ms\nplayers         %d",
		s.RTTMs, s.ServerTickLag, s.CorrectionsPS, s.Corrections, s.HardSnaps, s.LastCorrection, s.BytesUpPerS, s.BytesDownPerS, s.FrameMs, s.PlayersSeen)
}
