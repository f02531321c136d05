package lockstep_test

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// The xxHash64 primes.
const (
	xxP1 uint64 = 11400714785074694791
	xxP2 uint64 = 14029467366897019727
)

func xxRound(acc, x uint64) uint64 { return bits.RotateLeft64(acc+x*xxP2, 31) * xxP1 }

// inverse returns the multiplicative inverse of an odd x modulo 2⁶⁴.
func inverse(x uint64) uint64 {
	y := x // Newton's iteration: each step doubles the correct low bits
	for range 6 {
		y *= 2 - x*y
	}
	return y
}

// recordSize is the size of one entity record in a sim snapshot and in a
// state-hash leaf (sim's package documentation).
const recordSize = 53

// forgeCollision is the forger of a snapshot donor: it takes the honest
// snapshot of s and changes one unit's health, then picks the 8 bytes of a
// later lane of the same xxHash64 accumulator in the same state-hash leaf
// (another unit's fields) so that the accumulator, hence the leaf hash,
// the Merkle root and StateHash, come out unchanged: each lane enters its
// accumulator as rotl(acc + x·P2, 31)·P1, which is solved for x. It
// returns a snapshot that differs from the honest one and that restores,
// passing every structural check, to a state with the honest StateHash.
func forgeCollision(s *sim.Sim) ([]byte, bool) {
	honest := s.Snapshot()
	ents := s.Entities()
	base := len(honest) - len(ents)*recordSize
	groups := map[protocol.PlayerID][]int{} // a player's units leaf: its records, in order
	for i, e := range ents {
		if e.Owner != 0 && sim.RulesOf(e.Type).Category == sim.CategoryUnit {
			groups[e.Owner] = append(groups[e.Owner], i)
		}
	}
	want := s.StateHash()
	for owner := protocol.PlayerID(1); owner <= protocol.PlayerID(s.Players()); owner++ {
		recs := groups[owner]
		at := func(o int) int { return base + recs[o/recordSize]*recordSize + o%recordSize } // leaf offset → snapshot offset
		n := len(recs) * recordSize
		lanes := n / 32 * 4 // lanes in whole stripes
		for k := range recs {
			h := k*recordSize + 20 // Health, 2 bytes
			j0 := h / 8
			if (h+1)/8 != j0 || j0 >= lanes {
				continue
			}
			for j1 := j0 + 4; j1 < lanes; j1 += 4 {
				forged := append([]byte(nil), honest...)
				leaf := func(b []byte, j int) uint64 {
					var x [8]byte
					for i := range 8 {
						x[i] = b[at(j*8+i)]
					}
					return binary.LittleEndian.Uint64(x[:])
				}
				hp := at(h)
				health := binary.LittleEndian.Uint16(forged[hp:])
				if health < 2 {
					continue
				}
				binary.LittleEndian.PutUint16(forged[hp:], health-1)
				// Both accumulator chains up to lane j1.
				p1, p2 := xxP1, xxP2 // variables: the seeds wrap modulo 2⁶⁴
				a := [4]uint64{p1 + p2, p2, 0, -p1}[j0%4]
				b := a
				for j := j0 % 4; j < j1; j += 4 {
					a, b = xxRound(a, leaf(honest, j)), xxRound(b, leaf(forged, j))
				}
				x := leaf(honest, j1) + (a-b)*inverse(xxP2)
				var xb [8]byte
				binary.LittleEndian.PutUint64(xb[:], x)
				for i := range 8 {
					forged[at(j1*8+i)] = xb[i]
				}
				scratch, _, err := newScratch(s)
				if err == nil && scratch.Restore(forged) == nil && scratch.StateHash() == want {
					return forged, true
				}
			}
		}
	}
	return nil, false
}

// TestForgedCollisionRejected: the forger of a 64-bit state hash. From a
// real match state, forgeCollision builds a snapshot that differs from the
// honest one, restores, and hashes to the same StateHash: checked against
// the agreed hash alone (as before), the rejoining player would load it.
// Checked against the witnesses' agreed SHA-256 digest, GameLoop rejects
// it before restoring anything, and still loads the honest snapshot.
func TestForgedCollisionRejected(t *testing.T) {
	s, team := newGame(t, 11)
	var orders []protocol.TimestampedOrder
	for tick := range uint64(200) {
		orders = team.Orders(s, orders[:0])
		if err := s.ApplyTick(protocol.TickOrders{Tick: tick, Orders: orders}); err != nil {
			t.Fatal(err)
		}
	}
	honest := s.Snapshot()
	forged, ok := forgeCollision(s)
	if !ok {
		t.Fatal("no collision found: the forger failed, so this test proves nothing")
	}
	diff := 0
	for i := range honest {
		if honest[i] != forged[i] {
			diff++
		}
	}
	t.Logf("forged snapshot: %d of %d bytes differ; StateHash %016x on both", diff, len(honest), s.StateHash())
	if xxhash.Sum64(forged) == xxhash.Sum64(honest) {
		t.Fatal("the forgery collides on the whole snapshot too: the test would not show the leaf attack")
	}
	agreed := lockstep.Agreed{Digest: sha256.Sum256(honest), Hash: s.StateHash()}
	for _, tc := range []struct {
		name   string
		data   []byte
		loaded bool
	}{{"forged", forged, false}, {"honest", honest, true}} {
		fresh, _, err := newScratch(s)
		if err != nil {
			t.Fatal(err)
		}
		x := &oneSnapshot{tick: 200, data: tc.data, agreed: agreed}
		loop := lockstep.GameLoop{Sim: fresh, Net: x}
		lockstep.SnapshotStep(&loop, x)
		if x.checked != 1 || x.loaded != tc.loaded || loop.Loaded != tc.loaded {
			t.Errorf("%s snapshot: checked %d times, loaded %v (loop %v); want once, %v", tc.name, x.checked, x.loaded, loop.Loaded, tc.loaded)
		}
		if !tc.loaded && (loop.Rejected != 1 || fresh.Tick() != 0) {
			t.Errorf("forged snapshot: %d rejected, simulation at tick %d; want 1 and the state untouched", loop.Rejected, fresh.Tick())
		}
	}
}

// oneSnapshot is a SnapshotExchange holding one received snapshot.
type oneSnapshot struct {
	lockstep.LocalNetwork
	tick            uint64
	data            []byte
	agreed          lockstep.Agreed
	checked         int
	loaded, offered bool
}

func (o *oneSnapshot) SnapshotWanted(uint64) bool        { return false }
func (o *oneSnapshot) DonateSnapshot(uint64, []byte)     {}
func (o *oneSnapshot) SnapshotChecked(_ uint64, ok bool) { o.checked++; o.loaded = ok }
func (o *oneSnapshot) ReceivedSnapshot() (uint64, []byte, lockstep.Agreed, bool) {
	if o.offered {
		return 0, nil, lockstep.Agreed{}, false
	}
	o.offered = true
	return o.tick, o.data, o.agreed, true
}

// BenchmarkSnapshotDigest is what a witness (and the relay, over the bytes
// it relays) pays per snapshot transfer: the SHA-256 of a 3-player match's
// snapshot after 200 ticks (13,480 bytes), beside the snapshot itself and
// the 64-bit state hash a forger can match.
func BenchmarkSnapshotDigest(b *testing.B) {
	s, team := newGame(b, 11)
	var orders []protocol.TimestampedOrder
	for tick := range uint64(200) {
		orders = team.Orders(s, orders[:0])
		if err := s.ApplyTick(protocol.TickOrders{Tick: tick, Orders: orders}); err != nil {
			b.Fatal(err)
		}
	}
	snap := s.Snapshot()
	b.Run("snapshot", func(b *testing.B) {
		b.SetBytes(int64(len(snap)))
		for b.Loop() {
			_ = s.Snapshot()
		}
	})
	b.Run("sha256", func(b *testing.B) {
		b.SetBytes(int64(len(snap)))
		for b.Loop() {
			_ = sha256.Sum256(snap)
		}
	})
	b.Run("statehash", func(b *testing.B) {
		for b.Loop() {
			_ = s.StateHash()
		}
	})
}
