package replay_test

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	"github.com/tickwire/tickwire/internal/ordertraffic"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/replay"
)

// testKey is a fixed relay key: Ed25519 signatures are deterministic, so
// the files built with it are byte for byte the same on every run.
func testKey(b byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize))
}

func testHeader(players int, every uint16) replay.Header {
	h := replay.Header{Model: "lockstep", Game: "rts", Room: "golden", StartedUnixUs: 1_700_000_000_000_000,
		Seed: 0x5eed, TickRate: 30, SignEvery: every, Qos: replay.QosProfile{DeadlineMinUs: 30_000, DeadlineMaxUs: 200_000, RunAheadMin: 2, RunAheadMax: 8}}
	h.MapHash[0], h.RulesHash[31] = 0xAA, 0xBB
	for i := range players {
		p := replay.Player{ID: uint16(i + 1)}
		if i%2 == 0 {
			p.Key = testKey(byte(0x10 + i)).Public().(ed25519.PublicKey)
		}
		h.Players = append(h.Players, p)
	}
	return h
}

// recorded is a file built by build and what went into it.
type recorded struct {
	file   []byte
	frames []protocol.TickOrders
	// ends[i] is the file's length after frame i's record.
	ends []int
}

// offsets records the length of the file after each write: a record is
// one write.
type offsets struct {
	bytes.Buffer
	kinds []byte
	ends  []int
}

func (o *offsets) Write(p []byte) (int, error) {
	n, err := o.Buffer.Write(p)
	o.kinds = append(o.kinds, p[0])
	o.ends = append(o.ends, o.Len())
	return n, err
}

// build writes a replay of ticks of seeded order traffic (ticks 1..ticks): a sync hash
// every 5 ticks, a QoS event at tick 3, a signature every "every" frames,
// and the footer.
func build(t testing.TB, players, ticks int, every uint16) recorded {
	t.Helper()
	var out offsets
	e, err := replay.NewEncoder(&out, testHeader(players, every), testKey(1))
	if err != nil {
		t.Fatal(err)
	}
	r := recorded{frames: ordertraffic.Generate(ordertraffic.Model{Seed: 7, Ticks: ticks, Players: players})}
	for _, f := range r.frames {
		if err := e.Frame(f); err != nil {
			t.Fatal(err)
		}
		r.ends = append(r.ends, out.ends[len(out.ends)-1])
		if f.Tick == 3 {
			check(t, e.Qos(replay.QosEvent{Tick: 3, OldDeadlineUs: 60_000, NewDeadlineUs: 70_000, OldRunAhead: 3, NewRunAhead: 4, LateRateBps: 250}))
		}
		if f.Tick%5 == 0 {
			check(t, e.Sync(replay.SyncHash{Tick: f.Tick, Hash: 0xC0FFEE + f.Tick}))
		}
	}
	// A frame's end is its record's, before a signature that follows it.
	for i, f := range r.frames {
		if int(f.Tick)%int(every) == 0 {
			r.ends[i] = frameEnd(&out, r.ends[i])
		}
	}
	check(t, e.Finish(replay.Footer{Ticks: uint64(ticks), FinalTick: uint64(ticks), FinalHash: 0xF1A1}))
	r.file = out.Bytes()
	return r
}

// frameEnd is the end of the record before the signature ending at end.
func frameEnd(o *offsets, end int) int {
	for i, e := range o.ends {
		if e == end && i > 0 {
			return o.ends[i-1]
		}
	}
	return end
}

func check(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
