package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"github.com/tickwire/tickwire/replay"
)

// replayInfo is "tickwire replay info": a replay's header, footer and
// contents.
type replayInfo struct {
	File          string          `json:"file"`
	Bytes         int64           `json:"bytes"`
	FormatVersion int             `json:"format_version"`
	NetworkModel  string          `json:"network_model"`
	Game          string          `json:"game"`
	Room          string          `json:"room"`
	Started       time.Time       `json:"started"`
	Seed          string          `json:"seed"`
	MapSeed       string          `json:"map_seed"`
	MapHash       string          `json:"map_hash"`
	RulesHash     string          `json:"rules_hash"`
	TickRate      int             `json:"tick_rate"`
	SignEvery     int             `json:"sign_every"`
	RelayKey      string          `json:"relay_key"`
	Players       []replayPlayer  `json:"players"`
	Qos           replayQos       `json:"qos_profile"`
	Frames        int             `json:"frames"`
	Ticks         uint64          `json:"ticks"`
	SyncHashes    int             `json:"sync_hashes"`
	QosEvents     int             `json:"qos_events"`
	Inputs        int             `json:"inputs"`
	Gaps          []replay.Gap    `json:"lost_gaps"`
	Signatures    int             `json:"signatures"`
	Truncated     bool            `json:"truncated"`
	Damage        string          `json:"damage,omitempty"`
	Finished      bool            `json:"finished"`
	Footer        *replayFooterJS `json:"footer"`
}

type replayPlayer struct {
	ID        int    `json:"id"`
	PublicKey string `json:"public_key,omitempty"`
}

type replayQos struct {
	DeadlineMinMS float64 `json:"deadline_min_ms"`
	DeadlineMaxMS float64 `json:"deadline_max_ms"`
	RunAheadMin   int     `json:"run_ahead_min"`
	RunAheadMax   int     `json:"run_ahead_max"`
}

type replayFooterJS struct {
	Ticks      uint64 `json:"ticks"`
	FinalTick  uint64 `json:"final_tick"`
	FinalHash  string `json:"final_hash"`
	Incomplete bool   `json:"incomplete"`
	LostFrames uint64 `json:"lost_frames"`
}

func newReplayInfo(path string, r *replay.Replay, damage error) replayInfo {
	h := &r.Header
	info := replayInfo{File: path, Bytes: r.Size, FormatVersion: replay.Version, NetworkModel: h.Model, Game: h.Game, Room: h.Room,
		Started: time.UnixMicro(h.StartedUnixUs).UTC(), Seed: fmt.Sprintf("%016x", h.Seed), MapSeed: fmt.Sprintf("%016x", h.MapSeed),
		MapHash: hex.EncodeToString(h.MapHash[:]), RulesHash: hex.EncodeToString(h.RulesHash[:]),
		TickRate: int(h.TickRate), SignEvery: int(h.SignEvery), RelayKey: hex.EncodeToString(h.RelayKey),
		Qos: replayQos{DeadlineMinMS: float64(h.Qos.DeadlineMinUs) / 1e3, DeadlineMaxMS: float64(h.Qos.DeadlineMaxUs) / 1e3,
			RunAheadMin: int(h.Qos.RunAheadMin), RunAheadMax: int(h.Qos.RunAheadMax)},
		Frames: len(r.Frames), Ticks: r.Ticks(), SyncHashes: len(r.Syncs), QosEvents: len(r.Qos), Inputs: len(r.Inputs),
		Gaps: append([]replay.Gap{}, r.Gaps...), Signatures: r.Signed(), Truncated: r.Truncated, Players: []replayPlayer{}}
	if damage != nil {
		info.Damage = damage.Error()
	}
	for _, p := range h.Players {
		info.Players = append(info.Players, replayPlayer{ID: int(p.ID), PublicKey: hex.EncodeToString(p.Key)})
	}
	if f := r.Footer; f != nil {
		info.Footer = &replayFooterJS{Ticks: f.Ticks, FinalTick: f.FinalTick, FinalHash: fmt.Sprintf("%016x", f.FinalHash),
			Incomplete: f.Incomplete(), LostFrames: f.LostFrames}
		info.Finished = damage == nil && r.Verify(nil) == nil
	}
	return info
}

func (i *replayInfo) print(w io.Writer) {
	fmt.Fprintf(w, "replay %s: format v%d, %d bytes\n", i.File, i.FormatVersion, i.Bytes)
	fmt.Fprintf(w, "match:    %s room %q, game %q, started %s\n", i.NetworkModel, i.Room, i.Game, i.Started.Format(time.RFC3339))
	fmt.Fprintf(w, "seed:     %s (map seed %s)\nmap:      %s\nrules:    %s\n", i.Seed, i.MapSeed, i.MapHash, i.RulesHash)
	fmt.Fprintf(w, "timing:   %d ticks/s, deadline %.0f..%.0f ms, run-ahead %d..%d\n", i.TickRate, i.Qos.DeadlineMinMS, i.Qos.DeadlineMaxMS, i.Qos.RunAheadMin, i.Qos.RunAheadMax)
	fmt.Fprintf(w, "signed:   by %s, every %d frames, %d signatures\n", i.RelayKey, i.SignEvery, i.Signatures)
	for _, p := range i.Players {
		key := p.PublicKey
		if key == "" {
			key = "(plaintext connection)"
		}
		fmt.Fprintf(w, "player %d: %s\n", p.ID, key)
	}
	fmt.Fprintf(w, "contents: %d frames (%d ticks), %d sync hashes, %d QoS events, %d inputs, %d gaps\n", i.Frames, i.Ticks, i.SyncHashes, i.QosEvents, i.Inputs, len(i.Gaps))
	if i.Damage != "" {
		fmt.Fprintf(w, "damage:   %s\n", i.Damage)
	}
	if f := i.Footer; f != nil {
		fmt.Fprintf(w, "footer:   %d ticks, final hash %s after tick %d, incomplete %v, %d frames lost\n", f.Ticks, f.FinalHash, f.FinalTick, f.Incomplete, f.LostFrames)
	} else {
		fmt.Fprintln(w, "footer:   none (the match was not finished)")
	}
}
