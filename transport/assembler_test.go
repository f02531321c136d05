package transport

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
	"unsafe"
)

// retained walks the assembler's buffers and returns the bytes they hold
// (capacities, not lengths), without reading its own counters.
func retained(a *assembler) int {
	n := 0
	for _, g := range a.groups {
		n += int(unsafe.Sizeof(*g)) + mapSlotBytes
		n += cap(g.data) + cap(g.order)*int(unsafe.Sizeof(g.order[0])) + cap(g.seen)*int(unsafe.Sizeof(g.seen[0]))
	}
	return n
}

// liveHeap returns the bytes of live heap objects after a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestFragmentFlood replays the fragment flood of the hardening issue:
// 2,000 datagrams of 27 bytes, each opening a fragment group on a reliable
// channel that declares 65,535 fragments for a 10-byte message. The heap
// must not grow with the declared count, and what the session accounts
// for must be what its assembler retains. A second flood declares the
// largest total its fragments can be consistent with.
func TestFragmentFlood(t *testing.T) {
	const flood = 2000
	for _, c := range []struct {
		name    string
		total   uint32
		payload int
	}{
		{"count-over-total", 10, 5},
		{"largest-consistent", 0xFFFF * 73, 73},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := newSimNet(t, 60, Config{}, Config{}, clean, clean)
			n.connect()
			srv := n.s[1]
			before := liveHeap()
			for i := range flood {
				d := appendHeader(nil, header{connID: srv.connID, seq: uint32(9000 + i)})
				d = appendFrame(d, &frame{channel: ChannelWorld, flags: frameReliable | frameOrdered | frameFragment | frameToEnd,
					seq: uint16(i), count: 0xFFFF, total: c.total, payload: make([]byte, c.payload)})
				if c.payload == 5 && len(d) != 27 {
					t.Fatalf("datagram of %d bytes", len(d))
				}
				srv.HandleDatagram(d, n.now)
				if i%100 == 99 || i == flood-1 {
					if grown := liveHeap() - before; grown > 4<<20 {
						t.Fatalf("after %d datagrams the heap grew by %d MB (MemoryInUse %d bytes)", i+1, grown>>20, srv.MemoryInUse())
					}
				}
			}
			if got, want := srv.asm.memory(), retained(&srv.asm); got != want {
				t.Fatalf("assembler accounts for %d bytes, retains %d", got, want)
			}
			if srv.asm.reserved > srv.asm.limit {
				t.Fatalf("reserved %d of %d", srv.asm.reserved, srv.asm.limit)
			}
			st := srv.Stats()
			if c.payload == 5 && (st.Malformed != flood || st.ProtocolErrors != flood) {
				t.Fatalf("malformed %d, protocol errors %d; want %d each", st.Malformed, st.ProtocolErrors, flood)
			}
			if c.payload == 73 && srv.MemoryInUse() > 64<<10 {
				t.Fatalf("%d groups hold %d bytes", len(srv.asm.groups), srv.MemoryInUse())
			}
			runtime.KeepAlive(srv)
		})
	}
}

// fragmentsOf splits msg like a sender with fragment payload size l.
func fragmentsOf(ch ChannelID, seq uint16, msg []byte, l int) []frame {
	count := (len(msg) + l - 1) / l
	var out []frame
	for i := range count {
		f := frame{channel: ch, flags: frameFragment, seq: seq, index: uint16(i), count: uint16(count),
			total: uint32(len(msg)), payload: msg[i*l : min((i+1)*l, len(msg))]}
		if i == count-1 {
			f.flags |= frameLastFragment
		}
		out = append(out, f)
	}
	return out
}

// TestAssemblerAccounting is a property test: over random streams of
// fragments (interleaved messages, reordered, duplicated, lost, some
// contradicting their group, groups expiring) the assembler accounts for
// exactly the bytes its buffers retain, never reserves past its limit and
// completes exactly the messages whose fragments all arrived.
func TestAssemblerAccounting(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 7))
		a := assembler{limit: 256 << 10}
		now := simEpoch
		type sent struct {
			msg      []byte
			reliable bool
		}
		msgs := map[fragKey]sent{}
		var stream []frame
		for m := range 40 {
			ch := ChannelID(1 + rng.IntN(3))
			msg := make([]byte, 2+rng.IntN(20_000))
			for i := range msg {
				msg[i] = byte(rng.Uint32())
			}
			l := minFragPayload + rng.IntN(1200)
			if l >= len(msg) {
				l = (len(msg) + 1) / 2
				if l < minFragPayload {
					msg = append(msg, make([]byte, 2*minFragPayload-len(msg))...)
					l = minFragPayload
				}
			}
			key := fragKey{ch, uint16(m)}
			msgs[key] = sent{msg, ch != 3}
			for _, f := range fragmentsOf(ch, uint16(m), msg, l) {
				switch r := rng.Float64(); {
				case r < 0.05: // lost
					continue
				case r < 0.10:
					stream = append(stream, f)
				case r < 0.13: // contradicts its group
					f.total++
				}
				stream = append(stream, f)
			}
		}
		rng.Shuffle(len(stream), func(i, j int) {
			if rng.IntN(4) == 0 {
				stream[i], stream[j] = stream[j], stream[i]
			}
		})
		for i := range stream {
			f := &stream[i]
			want := msgs[fragKey{f.channel, f.seq}]
			got, err := a.add(f, want.reliable, now)
			if err == nil && got != nil && !bytes.Equal(got, want.msg) {
				t.Fatalf("seed %d: message %d/%d completed wrong", seed, f.channel, f.seq)
			}
			if acc, ret := a.memory(), retained(&a); acc != ret {
				t.Fatalf("seed %d, fragment %d: accounts for %d bytes, retains %d", seed, i, acc, ret)
			}
			if a.reserved > a.limit || a.reserved < a.memory() {
				t.Fatalf("seed %d: reserved %d, holds %d, limit %d", seed, a.reserved, a.memory(), a.limit)
			}
			now = now.Add(time.Millisecond)
			if i%200 == 0 {
				a.expire(now, 50*time.Millisecond)
			}
		}
	}
}

// TestFragLen: every fragment a sender cuts, at the smallest MTU with
// encryption and at the largest, passes the layout check with the
// sender's fragment size; fragments no sender cuts do not.
func TestFragLen(t *testing.T) {
	for _, cfg := range []Config{{MTU: minMTU, Security: &SecurityConfig{}, MaxMessageSize: 1 << 20}, {}, {MTU: maxMTU}} {
		set, err := cfg.resolve()
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{set.maxFramed + 1, 2 * set.fragPayload, 2*set.fragPayload + 1, 100_000} {
			m := &outMsg{}
			m.setPayload(make([]byte, size), false, set)
			for i := range m.count {
				f := m.frame(ChannelWorld, i)
				if got := fragLen(&f); got != set.fragPayload {
					t.Fatalf("MTU %d, %d bytes, fragment %d/%d: fragLen %d, want %d", set.mtu, size, i, m.count, got, set.fragPayload)
				}
			}
		}
	}
	if set, _ := (Config{MTU: minMTU, Security: &SecurityConfig{}, MaxMessageSize: 1 << 20}).resolve(); set.fragPayload != minFragPayload {
		t.Fatalf("smallest fragment payload %d, minFragPayload %d", set.fragPayload, minFragPayload)
	}
	for _, c := range []struct {
		name                string
		index, count, total int
		payload             int
	}{
		{"count over total", 0, 0xFFFF, 10, 5},
		{"one fragment", 0, 1, 100, 100},
		{"too few fragments", 0, 2, 1000, 100},
		{"too many fragments", 0, 12, 1000, 100},
		{"last longer than the others", 1, 2, 250, 150},
		{"last not the rest of equal fragments", 2, 3, 1001, 100},
		{"fragments under the minimum", 0, 20, 1000, 50},
	} {
		f := frame{index: uint16(c.index), count: uint16(c.count), total: uint32(c.total), payload: make([]byte, c.payload)}
		if l := fragLen(&f); l != 0 {
			t.Errorf("%s: fragLen %d, want 0", c.name, l)
		}
	}
}
