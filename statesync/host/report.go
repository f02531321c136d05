package host

import (
	"time"

	"github.com/tickwire/tickwire/statesync"
)

// Report is what a room saw, delivered when it ends. Its sample lists
// hold at most the latest MaxSamples entries.
type Report struct {
	Room     string
	Players  int
	Duration time.Duration
	Stats    statesync.Stats
	// FrameCPU is the time spent per broadcast frame decoding messages,
	// in the core, and encoding what it sends (each message once, however
	// many seats get it); not the transport's sends, encryption and
	// socket writes.
	FrameCPU []time.Duration
	// BytesIn and BytesOut are message bytes per seat (without transport
	// headers).
	BytesIn, BytesOut []int
	// RecoveryFrames and RecoveryBytes describe each completed recovery.
	RecoveryFrames []uint32
	RecoveryBytes  []int
	// LateJoins is the time each late joiner took to become ACTIVE.
	LateJoins []time.Duration
	// Desynced names each client found disagreeing (once per recovery).
	Desynced []uint32
	// FinalHashes is the majority hash of the last frames judged.
	LastVerdict        uint32
	LastVerdictHash    uint32
	Malformed, Refused int
	// Offenders counts the offences of each client that committed any
	// (evidence of a hostile client, statesync.Offence).
	Offenders map[uint32]int
}

// MaxSamples bounds each list of a Report: a room that runs for days keeps
// the latest samples only.
const MaxSamples = 12000

// keep appends v to a sample list, dropping the oldest beyond MaxSamples.
func keep[T any](xs []T, v T) []T {
	if len(xs) >= MaxSamples {
		xs = append(xs[:0], xs[len(xs)-MaxSamples/2:]...)
	}
	return append(xs, v)
}

func (r *ssRoom) record(e statesync.Event) {
	rep := &r.report
	switch e.Kind {
	case statesync.EventDesync:
		rep.Desynced = keep(rep.Desynced, e.Client)
		r.totals.desyncs.Add(1)
	case statesync.EventRecovered:
		rep.RecoveryFrames = keep(rep.RecoveryFrames, e.Frames)
		rep.RecoveryBytes = keep(rep.RecoveryBytes, e.Bytes)
		r.totals.recovered.Add(1)
	case statesync.EventPromoted:
		rep.LateJoins = keep(rep.LateJoins, time.Duration(e.Duration))
		r.totals.lateJoins.Add(1)
	case statesync.EventOffence:
		if rep.Offenders == nil {
			rep.Offenders = make(map[uint32]int)
		}
		if _, known := rep.Offenders[e.Client]; known || len(rep.Offenders) < MaxSamples {
			rep.Offenders[e.Client]++
		}
		r.totals.offences.Add(1)
	case statesync.EventVerdict:
		rep.LastVerdict, rep.LastVerdictHash = e.Frame, e.Hash
		r.recordVerdict(e.Frame, e.Hash)
	}
}
