package statesync_test

import (
	"container/heap"
	"fmt"
	"testing"
	"time"

	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/msg"
)

// TestQuorumCountsTheAbsent sweeps the coalition attack on the vote: a
// coalition of 10–45% of a room of 5–100 ACTIVE clients votes one forged
// hash the instant each Tick arrives, while some of the honest clients'
// hashes arrive 0–300 ms late (past the 100 ms collection window from
// 100 ms on). A verdict needs a strict majority of the room's ACTIVE
// clients, not of those that answered in time, so whatever the mix: no
// honest client is ever named desynced, no recovery starts for one, and
// the forged hash never becomes a frame's majority. When the honest
// clients are prompt the room keeps deciding (every frame a verdict for
// the honest hash). Counted, in virtual time, against the server core.
func TestQuorumCountsTheAbsent(t *testing.T) {
	const frames, truth, forged = 40, 0x7a11, 0xbad
	for _, size := range []int{5, 10, 25, 100} {
		for _, pct := range []int{10, 20, 30, 40, 45} {
			hostile := max(1, size*pct/100)
			if hostile*2 >= size {
				continue
			}
			for _, lateness := range []time.Duration{0, 50, 99, 101, 150, 300} {
				for _, lateShare := range []int{0, 50, 100} { // percent of honest clients that are late, the first one always prompt
					name := fmt.Sprintf("room%d/hostile%d/late%dms/%d%%", size, hostile, lateness, lateShare)
					t.Run(name, func(t *testing.T) {
						lateness := lateness * time.Millisecond
						srv := statesync.NewServer(statesync.Config{}, 0)
						for id := uint32(1); id <= uint32(size); id++ {
							if err := srv.Join(0, id); err != nil {
								t.Fatal(err)
							}
						}
						honest := size - hostile
						lateHonest := (honest - 1) * lateShare / 100
						// Clients 1..hostile are the coalition; the
						// last lateHonest ids are the late honest ones.
						delay := func(id uint32) (time.Duration, uint32) {
							switch {
							case int(id) <= hostile:
								return time.Millisecond, forged
							case int(id) > size-lateHonest:
								return 10*time.Millisecond + lateness, truth
							}
							return 10 * time.Millisecond, truth
						}
						var q deliveries
						seq := 0
						var now time.Duration
						var honestVerdicts int
						var events []statesync.Event
						flush := func() {
							for srv.HasReady() {
								rd := srv.Ready()
								for _, env := range rd.Messages {
									switch m := env.Msg.(type) {
									case *msg.Tick:
										for id := uint32(1); id <= uint32(size); id++ {
											d, h := delay(id)
											b, err := msg.Append(nil, &msg.StateHash{Frame: m.Frame, Hash: h})
											if err != nil {
												t.Fatal(err)
											}
											seq++
											heap.Push(&q, delivery{at: now + d, seq: seq, from: id, b: b})
										}
									}
								}
								for _, e := range rd.Events {
									if e.Kind != statesync.EventVerdict {
										continue
									}
									if e.Hash == forged {
										t.Fatalf("frame %d: the forged hash won the vote", e.Frame)
									}
									honestVerdicts++
									for _, id := range e.Clients {
										if int(id) > hostile {
											t.Fatalf("frame %d: honest client %d named desynced", e.Frame, id)
										}
									}
								}
								events = append(events, rd.Events...)
								srv.Advance(rd)
							}
						}
						srv.Tick(0)
						flush()
						end := frames * 50 * time.Millisecond
						for now < end {
							next := srv.NextDeadline()
							if len(q) > 0 && q[0].at < next {
								next = q[0].at
							}
							now = max(now, next)
							if len(q) > 0 && q[0].at <= now {
								d := heap.Pop(&q).(delivery)
								m, err := msg.Parse(d.b)
								if err != nil {
									t.Fatal(err)
								}
								_ = srv.Step(now, d.from, m) // a late hash is refused, not charged
							} else {
								srv.Tick(now)
							}
							flush()
						}
						for _, e := range events {
							if (e.Kind == statesync.EventDesync || e.Kind == statesync.EventRemoved) && int(e.Client) > hostile {
								t.Fatalf("honest client %d: event %v", e.Client, e.Kind)
							}
						}
						if st := srv.Stats(); st.Desyncs > uint64(hostile) {
							t.Fatalf("%d desyncs for a coalition of %d", st.Desyncs, hostile)
						}
						// Liveness: prompt honest clients, or late ones
						// that still make the window, decide every frame.
						if lateHonest == 0 || lateness < 90*time.Millisecond {
							if honestVerdicts < frames-2 {
								t.Fatalf("%d verdicts for the honest hash in %d frames, want every frame", honestVerdicts, frames)
							}
						}
					})
				}
			}
		}
	}
}
