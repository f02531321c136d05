package transport

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// parityRows returns the parity frames of one group of msgs on channel 1
// starting at sequence first, with m rows.
func parityRows(msgs [][]byte, first uint16, m int) []frame {
	var p paritySend
	for i, d := range msgs {
		p.add(&outMsg{seq: first + uint16(i), data: d}, 1, len(msgs), m, simEpoch, time.Millisecond)
	}
	var out []frame
	for _, d := range p.due {
		out = append(out, frame{channel: 1, flags: frameParity, seq: d.seq, payload: d.payload})
	}
	return out
}

// TestParityGolden pins the wire form of a parity frame (see doc.go).
func TestParityGolden(t *testing.T) {
	rows := parityRows([][]byte{[]byte("ab"), []byte("c")}, 7, 2)
	var b []byte
	for i := range rows {
		b = appendFrame(b, &rows[i])
	}
	const want = "0140000700051400df7fab01400007000515003c36d3"
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("parity frames %s, want %s", got, want)
	}
	f, rest, err := parseFrame(b)
	if err != nil || f.flags != frameParity || f.seq != 7 || len(rest) != len(b)/2 {
		t.Fatalf("parsed %+v, %v", f, err)
	}
	pf, ok := parseParity(f.payload, 256)
	if !ok || pf.k != 2 || pf.m != 2 || pf.j != 0 || len(pf.symbol) != 4 {
		t.Fatalf("parity %+v, %v", pf, ok)
	}
}

// TestParityRebuildsAnyErasures checks the code against its promise for
// every group size and row count: whatever e ≤ m of a group's messages
// are lost, any e of its parity rows rebuild them, and the receiver
// delivers the whole group in order; with more losses than rows it
// rebuilds nothing (and invents nothing).
func TestParityRebuildsAnyErasures(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cfg := Config{Channels: []ChannelConfig{{ID: 1, Reliability: ReliableOrdered, Redundancy: RedundancyAdaptive}}}
	for k := 1; k <= parityMaxK; k++ {
		for m := 1; m <= parityMaxM; m++ {
			for lost := 0; lost <= min(k, m+1); lost++ {
				t.Run(fmt.Sprintf("k%d_m%d_lost%d", k, m, lost), func(t *testing.T) {
					s, err := NewSession(cfg, SessionParams{ConnID: 1}, simEpoch)
					if err != nil {
						t.Fatal(err)
					}
					s.state = StateConnected
					msgs := make([][]byte, k)
					for i := range msgs {
						msgs[i] = make([]byte, rng.IntN(parityMaxSize+1))
						for j := range msgs[i] {
							msgs[i][j] = byte(rng.Uint32())
						}
					}
					first := uint16(rng.Uint32())
					s.recv[1].base = first
					rows := parityRows(msgs, first, m)
					gone := rng.Perm(k)[:lost]
					kept := 0
					for i, d := range msgs {
						if !containsInt(gone, i) {
							f := frame{channel: 1, flags: frameReliable | frameOrdered, seq: first + uint16(i), payload: d}
							s.handleFrame(&f, simEpoch)
							kept++
						}
					}
					for _, j := range rng.Perm(m)[:min(m, max(lost, 1))] {
						s.handleFrame(&rows[j], simEpoch)
					}
					var got [][]byte
					for {
						msg, ok := s.Receive()
						if !ok {
							break
						}
						got = append(got, msg.Data)
					}
					want := msgs
					if lost > m {
						want = nil // the first lost blocks the ordered channel
						for i := range msgs {
							if containsInt(gone, i) {
								break
							}
							want = append(want, msgs[i])
						}
					}
					if len(got) != len(want) {
						t.Fatalf("%d messages delivered, want %d (lost %v)", len(got), len(want), gone)
					}
					for i := range want {
						if !bytes.Equal(got[i], want[i]) {
							t.Fatalf("message %d differs", i)
						}
					}
				})
			}
		}
	}
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// TestParityPlan checks the adaptive policy's choices: nothing on a clean
// path, more rows per message as loss grows, groups no longer than a
// third of the RTT, and every plan within the stall target when one can be.
func TestParityPlan(t *testing.T) {
	if k, m := parityPlan(0.001, 80*time.Millisecond, 2*time.Millisecond, true); k != 0 || m != 0 {
		t.Errorf("clean path: k=%d m=%d, want none", k, m)
	}
	prev := 0.0
	for _, loss := range []float64{0.005, 0.01, 0.03, 0.1} {
		k, m := parityPlan(loss, 80*time.Millisecond, 2*time.Millisecond, true)
		cost := float64(m) / float64(k)
		stalled := 1 + 40.0/2
		t.Logf("loss %.3f: k=%d m=%d, %.2f rows per message, stall share %.4f", loss, k, m, cost, stalled*unrecovered(loss, k, m))
		if k < 1 || k > 13 || cost < prev {
			t.Errorf("loss %.3f: k=%d m=%d (cost %.2f after %.2f)", loss, k, m, cost, prev)
		}
		if loss <= 0.03 && stalled*unrecovered(loss, k, m) > stallTarget {
			t.Errorf("loss %.3f: stall share over the target", loss)
		}
		prev = cost
	}
}
