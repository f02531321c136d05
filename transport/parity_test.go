package transport

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// repairFrames returns count repairs (ids from 0) on channel 1 of the
// window msgs, whose first message has sequence first.
func repairFrames(msgs [][]byte, first uint16, count int) []frame {
	var out []frame
	for id := range count {
		out = append(out, frame{channel: 1, flags: frameParity, seq: first, payload: repairPayload(first, msgs, byte(id))})
	}
	return out
}

// TestParityGolden pins the wire form of a repair and of a report (see
// doc.go).
func TestParityGolden(t *testing.T) {
	rows := repairFrames([][]byte{[]byte("ab"), []byte("c")}, 7, 2)
	rows = append(rows, frame{channel: 1, flags: frameParity, seq: 9, payload: []byte{repairReport}})
	var b []byte
	for i := range rows {
		b = appendFrame(b, &rows[i])
	}
	const want = "0140000700060100003491e5014000070006010100e46bbb01400009000180"
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("repair frames %s, want %s", got, want)
	}
	f, rest, err := parseFrame(b)
	if err != nil || f.flags != frameParity || f.seq != 7 {
		t.Fatalf("parsed %+v, %v", f, err)
	}
	rf, report, ok := parseRepair(f.payload, 256)
	if !ok || report || rf.n != 2 || rf.id != 0 || len(rf.symbol) != 4 {
		t.Fatalf("repair %+v, %v %v", rf, report, ok)
	}
	f, _, _ = parseFrame(rest[len(rest)-7:])
	if _, report, ok := parseRepair(f.payload, 256); !ok || !report || f.seq != 9 {
		t.Fatalf("report %+v: %v %v", f, report, ok)
	}
	for _, bad := range [][]byte{{}, {0x81}, {0x80, 0}, {repairWindow, 0, 0, 0}, {0, 0, 0}} {
		if _, _, ok := parseRepair(bad, 256); ok {
			t.Errorf("payload %x accepted", bad)
		}
	}
}

// TestRepairRebuildsAnyErasures checks the code against its promise over
// window sizes up to the largest: whatever e messages of a window are
// lost, any e repairs covering it rebuild them, and the receiver delivers
// the whole window in order; with fewer repairs than losses it rebuilds
// nothing (and invents nothing).
func TestRepairRebuildsAnyErasures(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cfg := Config{Channels: []ChannelConfig{{ID: 1, Reliability: ReliableOrdered, Redundancy: RedundancyAdaptive}}}
	for _, n := range []int{1, 2, 3, 7, 16, 33, repairWindow} {
		for lost := 0; lost <= min(n, 5); lost++ {
			for _, repairs := range []int{max(lost-1, 1), lost, lost + 1} {
				t.Run(fmt.Sprintf("n%d_lost%d_repairs%d", n, lost, repairs), func(t *testing.T) {
					s, err := NewSession(cfg, SessionParams{ConnID: 1}, simEpoch)
					if err != nil {
						t.Fatal(err)
					}
					s.state = StateConnected
					msgs := make([][]byte, n)
					for i := range msgs {
						msgs[i] = make([]byte, rng.IntN(parityMaxSize+1))
						for j := range msgs[i] {
							msgs[i][j] = byte(rng.Uint32())
						}
					}
					first := uint16(rng.Uint32())
					s.recv[1].base = first
					rows := repairFrames(msgs, first, lost+2)
					gone := rng.Perm(n)[:lost]
					for i, d := range msgs {
						if !containsInt(gone, i) {
							f := frame{channel: 1, flags: frameReliable | frameOrdered, seq: first + uint16(i), payload: d}
							s.handleFrame(&f, simEpoch)
						}
					}
					for _, j := range rng.Perm(lost + 2)[:repairs] {
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
					if lost > repairs {
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
					if lost > 0 && lost <= repairs && s.recv[1].par.reports != reportCopies {
						t.Errorf("rebuilt %d messages but no report planned", lost)
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

// TestRepairReportSparesRetransmission: a report that the receiver holds
// every message before a sequence acknowledges them on the sender, so a
// lost one queued for retransmission is not sent again; a report beyond
// what was sent is ignored.
func TestRepairReportSparesRetransmission(t *testing.T) {
	cfg := Config{Channels: []ChannelConfig{{ID: 1, Reliability: ReliableOrdered, Priority: Critical}}}
	s, err := NewSession(cfg, SessionParams{ConnID: 1}, simEpoch)
	if err != nil {
		t.Fatal(err)
	}
	s.state = StateConnected
	c := s.send[1]
	for range 4 {
		if err := s.Send(1, []byte("urgent"), simEpoch); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		r, ok := c.peek(true, simEpoch)
		if !ok {
			t.Fatal("nothing to send")
		}
		c.take(r, 1, true)
	}
	lost := c.unacked.items()[1]
	hold := simEpoch.Add(time.Second)
	c.onLost(fragRef{lost, 0}, hold)
	if _, ok := c.peek(true, simEpoch); ok {
		t.Fatal("a held retransmission was offered before its time")
	}
	if got := c.heldUntil(); !got.Equal(hold) {
		t.Fatalf("held until %v, want %v", got, hold)
	}
	c.onReport(c.nextSeq + 1) // beyond what was sent
	if c.unacked.len() != 4 {
		t.Fatalf("a report beyond the sent messages acknowledged %d", 4-c.unacked.len())
	}
	c.onReport(lost.seq + 1)
	if c.unacked.len() != 2 || lost.state[0] != fragAcked {
		t.Fatalf("after the report: %d unacknowledged, state %d", c.unacked.len(), lost.state[0])
	}
	if _, ok := c.peek(true, hold); ok {
		t.Fatal("a message the receiver rebuilt is still retransmitted")
	}
}

// TestRepairPlan checks the adaptive policy's choices: nothing on a clean
// path, repairs more often as loss grows, never further apart than a
// quarter of the RTT (counted in messages when datagrams carry several).
func TestRepairPlan(t *testing.T) {
	if r := repairPlan(0.001, 80*time.Millisecond, 2*time.Millisecond, 1); r != 0 {
		t.Errorf("clean path: R=%d, want none", r)
	}
	prev := repairMaxEvery + 1
	for _, loss := range []float64{0.005, 0.01, 0.03, 0.1, 0.5} {
		r := repairPlan(loss, 80*time.Millisecond, 2*time.Millisecond, 1)
		t.Logf("loss %.3f: a repair every %d messages", loss, r)
		if r < 1 || r > 10 || r > prev {
			t.Errorf("loss %.3f: R=%d (after %d)", loss, r, prev)
		}
		prev = r
	}
	if r := repairPlan(0.03, 80*time.Millisecond, 2*time.Millisecond, 1); r != 6 {
		t.Errorf("3%% loss: R=%d, want 6", r)
	}
	if r := repairPlan(0.03, 80*time.Millisecond, 12*time.Millisecond, 3); r != 2 {
		t.Errorf("3%% loss, 3 messages per datagram every 12 ms: R=%d, want 2", r)
	}
	if r := repairPlan(0.03, 80*time.Millisecond, 33*time.Millisecond, 1); r != 1 {
		t.Errorf("30 messages a second: R=%d, want 1", r)
	}
}

// FuzzRepairReceive drives a protected channel's receiver with messages
// and repair frames whose payloads come from the fuzzer (seeded with real
// repairs): it never panics, never delivers a message longer than the
// channel allows (as the messages it is given are), and its held bytes stay within the cache and the
// pending repairs. Input: records of [kind, sequence offset, length,
// bytes...]; kind even is a message, odd a repair or report payload.
func FuzzRepairReceive(f *testing.F) {
	msgs := [][]byte{[]byte("input"), []byte("order"), []byte("move")}
	var seed []byte
	for i, m := range msgs[1:] {
		seed = append(seed, 0, byte(i+1), byte(len(m)))
		seed = append(seed, m...)
	}
	for _, r := range repairFrames(msgs, 0, 2) {
		seed = append(seed, 1, 0, byte(len(r.payload)))
		seed = append(seed, r.payload...)
	}
	f.Add(seed)
	f.Add([]byte{1, 3, 1, repairReport})
	cfg := Config{Channels: []ChannelConfig{{ID: 1, Reliability: ReliableOrdered, Redundancy: RedundancyAdaptive, MaxMessageSize: 64}}}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := NewSession(cfg, SessionParams{ConnID: 1}, simEpoch)
		if err != nil {
			t.Fatal(err)
		}
		s.state = StateConnected
		for len(b) >= 3 {
			kind, off, n := b[0], b[1], int(b[2])
			b = b[3:]
			n = min(n, len(b))
			p := b[:n]
			b = b[n:]
			fr := frame{channel: 1, flags: frameReliable | frameOrdered, seq: uint16(off % 80), payload: p}
			if kind%2 == 1 {
				fr.flags = frameParity
			} else {
				fr.payload = p[:min(len(p), 64)] // what the channel accepts: longer comes from a rebuild
			}
			if !s.validFrame(&fr) {
				continue
			}
			s.handleFrame(&fr, simEpoch)
			if rp := s.recv[1].par; rp.bytes > parityCache*parityMaxSize+maxRepairs*(2+parityMaxSize) || len(rp.repairs) > maxRepairs {
				t.Fatalf("receiver holds %d bytes, %d repairs", rp.bytes, len(rp.repairs))
			}
		}
		for {
			m, ok := s.Receive()
			if !ok {
				break
			}
			if len(m.Data) > 64 {
				t.Fatalf("delivered %d bytes, over the channel's 64", len(m.Data))
			}
		}
	})
}
