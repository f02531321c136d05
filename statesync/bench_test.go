package statesync_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/hostile"
	"github.com/tickwire/tickwire/statesync/msg"
)

// recordRoom plays a room of n clients (joined 20 a frame, then warmup
// frames), the last k of them hostile with every tactic, and records the
// server's inputs over the next frames.
func recordRoom(tb testing.TB, n, k, frames int) (ops []serverOp, steady int, r *room) {
	r = newRoom(tb, 9, statesync.Config{Seed: 9}, 300)
	r.transcript = &ops
	id := uint32(1)
	for len(r.clients) < n {
		for range min(20, n-len(r.clients)) {
			r.join(id)
			id++
		}
		r.frames(1)
	}
	r.frames(60)
	for id := uint32(n - k + 1); id <= uint32(n); id++ {
		r.hostile[id] = hostile.All
	}
	steady = len(ops)
	r.frames(frames)
	return ops, steady, r
}

// replay feeds a transcript to a fresh server, decoding every message as
// the network shell would and encoding everything it sends once (a
// broadcast is encoded once for all). It returns the time spent from
// op index from on.
func replay(ops []serverOp, from int) time.Duration {
	srv := statesync.NewServer(statesync.Config{}, 0)
	var buf []byte
	var start time.Time
	for i, op := range ops {
		if i == from {
			start = time.Now()
		}
		switch op.kind {
		case 'j':
			_ = srv.Join(op.at, op.id)
		case 'l':
			srv.Leave(op.at, op.id)
		case 't':
			srv.Tick(op.at)
		case 's':
			if m, err := msg.Parse(op.b); err == nil {
				if _, hello := m.(*msg.Hello); hello {
					_ = srv.Rejoin(op.at, op.id)
				} else {
					_ = srv.Step(op.at, op.id, m)
				}
			}
		}
		if srv.HasReady() {
			rd := srv.Ready()
			for _, env := range rd.Messages {
				buf, _ = msg.Append(buf[:0], env.Msg)
			}
			srv.Advance(rd)
		}
	}
	return time.Since(start)
}

// BenchmarkServerFrame: server core CPU per frame (decode, core, encode;
// no sockets) in a steady room of 100, 250 and 1,000 clients with the
// test game (300 entities), replayed from a recorded transcript; and at
// 100 and 1,000 clients with 1 and 30 of them hostile (every tactic of
// package hostile).
func BenchmarkServerFrame(b *testing.B) {
	for _, size := range [][2]int{{100, 0}, {250, 0}, {1000, 0}, {100, 1}, {100, 30}, {1000, 1}, {1000, 30}} {
		n, k := size[0], size[1]
		b.Run(fmt.Sprintf("clients=%d/hostile=%d", n, k), func(b *testing.B) {
			const frames = 40
			ops, steady, r := recordRoom(b, n, k, frames)
			in := 0
			for _, op := range ops[steady:] {
				if op.kind == 's' {
					in++
				}
			}
			b.ResetTimer()
			var total time.Duration
			for range b.N {
				total += replay(ops, steady)
			}
			perFrame := total / time.Duration(b.N*frames)
			b.ReportMetric(float64(perFrame.Microseconds())/1000, "ms/frame")
			b.ReportMetric(float64(in)/frames, "datagrams_in/frame")
			b.ReportMetric(float64(len(r.clients)), "datagrams_out/frame")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// TestBandwidthPerClient measures upload and download per client in a
// steady 100-client room (payload bytes, without transport headers) and
// holds upload below the seed's 380 B/s.
func TestBandwidthPerClient(t *testing.T) {
	r := newRoom(t, 11, statesync.Config{}, 300)
	for id := uint32(1); id <= 100; id++ {
		r.join(id)
		if id%20 == 0 {
			r.frames(1)
		}
	}
	r.frames(60)
	up0, down0 := sum(r.upBytes), sum(r.downBytes)
	const seconds = 20
	r.frames(seconds * 20)
	up := float64(sum(r.upBytes)-up0) / 100 / seconds
	down := float64(sum(r.downBytes)-down0) / 100 / seconds
	t.Logf("per client: upload %.0f B/s, download %.0f B/s", up, down)
	if up >= 380 {
		t.Fatalf("upload %.0f B/s per client, the seed's design is ~380", up)
	}
}

func sum(m map[uint32]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestLateJoinTime measures, in virtual time with 20-30 ms one-way
// delays, how long a client joining a 100-client room takes to become
// ACTIVE, and the bytes of state it receives.
func TestLateJoinTime(t *testing.T) {
	r := healthyRoom(t, 12, 100)
	r.join(1000)
	start := r.now
	for r.srv.State(1000) != statesync.StateActive && r.now-start < 5*time.Second {
		r.frames(1)
	}
	if r.srv.State(1000) != statesync.StateActive {
		t.Fatal("late joiner never became ACTIVE")
	}
	var bytes int
	for _, e := range r.clientEvents[1000] {
		if e.Kind == statesync.ClientSynced {
			bytes = e.Bytes
		}
	}
	for _, e := range r.events(statesync.EventPromoted) {
		if e.Client == 1000 {
			t.Logf("late join: ACTIVE %v after joining (frame resolution 50 ms); state %d bytes", time.Duration(e.Duration), bytes)
		}
	}
}

// BenchmarkLocalise: building the Merkle leaves of a 5,000-entity state
// and localising one corrupted entity.
func BenchmarkLocalise(b *testing.B) {
	a := newTestEngine(0)
	for id := uint32(1); id <= 5000; id++ {
		rec := make([]byte, unitLen)
		rec[12] = byte(id) | 1 // HP
		_ = a.SetEntity(id, rec)
	}
	c := newTestEngine(0)
	_ = statesync.ApplyFullState(c, statesync.FullState(nil, a))
	c.corrupt(2500)
	la, _ := statesync.Leaves(nil, a, nil)
	b.ResetTimer()
	for range b.N {
		lc, _ := statesync.Leaves(nil, c, nil)
		got, _ := statesync.Divergent(nil, statesync.NewMerkleTree(lc), statesync.NewMerkleTree(la))
		if len(got) != 1 {
			b.Fatal(got)
		}
	}
	b.ReportMetric(float64(len(la)), "leaves")
}
