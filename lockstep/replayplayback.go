package lockstep

import (
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/replay"
)

// ReplayPlayback is the network model of a replay file: it hands a game
// loop the recorded ticks in order, as a relay would, and checks each
// state hash the loop reports against the hashes the players agreed on
// when the match was played (and the footer's final hash). Playback
// stops at the end of the frames, or before a gap the writer lost: the
// simulation cannot cross a tick it does not have.
//
// Orders submitted to it are ignored: a replay has no local player.
type ReplayPlayback struct {
	frames  []protocol.TickOrders
	next    int
	want    map[uint64]uint64 // recorded hash by tick
	checked int
	gap     bool
	status  Status
	diag    Diagnostics
}

// NewReplayPlayback plays r.
func NewReplayPlayback(r *replay.Replay) *ReplayPlayback {
	p := &ReplayPlayback{frames: r.Frames, want: make(map[uint64]uint64, len(r.Syncs)+1), status: StatusPlaying}
	for _, s := range r.Syncs {
		p.want[s.Tick] = s.Hash
	}
	if f := r.Footer; f != nil && (f.FinalTick != 0 || f.FinalHash != 0) {
		p.want[f.FinalTick] = f.FinalHash
	}
	return p
}

// SubmitOrder implements NetworkModel: a replay takes no orders.
func (p *ReplayPlayback) SubmitOrder(protocol.TimestampedOrder) {}

// PollTick implements NetworkModel: the next recorded tick, until the
// frames end or reach a gap.
func (p *ReplayPlayback) PollTick() (protocol.TickOrders, bool) {
	if p.next >= len(p.frames) || p.status == StatusEnded {
		p.end()
		return protocol.TickOrders{}, false
	}
	t := p.frames[p.next]
	if p.next > 0 && t.Tick != p.frames[p.next-1].Tick+1 {
		p.gap = true
		p.end()
		return protocol.TickOrders{}, false
	}
	p.next++
	p.diag.Tick = t.Tick
	return t, true
}

func (p *ReplayPlayback) end() {
	if p.status == StatusPlaying {
		p.status = StatusEnded
	}
}

// ReportSyncHash implements NetworkModel: a hash that differs from the
// recorded one is a desync, the first of which Diagnostics names.
func (p *ReplayPlayback) ReportSyncHash(tick, hash uint64) {
	want, ok := p.want[tick]
	if !ok {
		return
	}
	p.checked++
	if hash != want {
		if p.diag.Desyncs == 0 {
			p.diag.DesyncTick = tick
		}
		p.diag.Desyncs++
		p.status = StatusDesynced
	}
}

// Status implements NetworkModel: playing, ended after the last tick,
// or desynced once a hash differed.
func (p *ReplayPlayback) Status() Status { return p.status }

// Diagnostics implements NetworkModel.
func (p *ReplayPlayback) Diagnostics() Diagnostics { return p.diag }

// Checked is the number of recorded hashes compared so far.
func (p *ReplayPlayback) Checked() int { return p.checked }

// Expected is the number of recorded hashes there are to compare.
func (p *ReplayPlayback) Expected() int { return len(p.want) }

// StoppedAtGap reports that playback stopped before frames the writer
// lost.
func (p *ReplayPlayback) StoppedAtGap() bool { return p.gap }

// Progress is the recorded ticks handed out so far and in all.
func (p *ReplayPlayback) Progress() (done, total int) { return p.next, len(p.frames) }
