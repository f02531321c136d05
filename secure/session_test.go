package secure

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// sessions returns two ends of one session, keyed directly.
func sessions(rekeyAfter uint64) (a, b *Session) {
	var x, y secret
	x[0], y[0] = 1, 2
	return newSession(x, y, rekeyAfter), newSession(y, x, rekeyAfter)
}

type datagram struct {
	seq    uint32
	header []byte
	sealed []byte
}

func seal(t testing.TB, s *Session, seq uint32, msg string) datagram {
	t.Helper()
	h := testHeader(seq)
	out, err := s.Seal(nil, seq, h, []byte(msg))
	if err != nil {
		t.Fatalf("seal %d: %v", seq, err)
	}
	if len(out) != len(msg)+Overhead {
		t.Fatalf("sealed %d bytes for %d", len(out), len(msg))
	}
	return datagram{seq, h, out}
}

func (d datagram) open(s *Session) (string, error) {
	out, err := s.Open(nil, d.seq, d.header, d.sealed)
	return string(out), err
}

func TestReplayedDatagramIsRejected(t *testing.T) {
	a, b := sessions(0)
	d := seal(t, a, 1, "move 3 units")
	if got, err := d.open(b); err != nil || got != "move 3 units" {
		t.Fatalf("first open: %q %v", got, err)
	}
	if _, err := d.open(b); !errors.Is(err, ErrReplay) {
		t.Fatalf("replay: %v", err)
	}
	// Replaying it under another sequence (rewritten header) fails the tag:
	// the nonce is bound to the sequence.
	moved := datagram{2, testHeader(2), d.sealed}
	if _, err := moved.open(b); !errors.Is(err, ErrAuth) {
		t.Fatalf("replay under a new sequence: %v", err)
	}
	if st := b.Stats(); st.Replayed != 1 || st.Tampered != 1 || st.Opened != 1 {
		t.Fatalf("stats %+v", st)
	}
	// The sequence that failed authentication is still free for the genuine datagram.
	if _, err := seal(t, a, 2, "x").open(b); err != nil {
		t.Fatal(err)
	}
}

func TestTamperedDatagramIsDroppedAndCounted(t *testing.T) {
	a, b := sessions(0)
	d := seal(t, a, 7, "attack-move to 12,40")
	tampered := 0
	for i := range len(d.header) + len(d.sealed) {
		bad := datagram{d.seq, bytes.Clone(d.header), bytes.Clone(d.sealed)}
		if i < len(d.header) {
			bad.header[i] ^= 0x80
		} else {
			bad.sealed[i-len(d.header)] ^= 0x01
		}
		_, err := bad.open(b)
		if !errors.Is(err, ErrAuth) {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
		tampered++
	}
	bad := datagram{d.seq, d.header, bytes.Clone(d.sealed)}
	bad.sealed[0] |= 0x02 // reserved flag bit
	if _, err := bad.open(b); !errors.Is(err, ErrMalformed) {
		t.Fatalf("reserved bit: %v", err)
	}
	if _, err := (datagram{d.seq, d.header, d.sealed[:Overhead-1]}).open(b); !errors.Is(err, ErrMalformed) {
		t.Fatalf("truncated: %v", err)
	}
	st := b.Stats()
	if st.Tampered != uint64(tampered) || st.Malformed != 2 || st.Opened != 0 {
		t.Fatalf("stats %+v after %d tampered", st, tampered)
	}
	if got, err := d.open(b); err != nil || got != "attack-move to 12,40" {
		t.Fatalf("genuine datagram after tampering: %q %v", got, err)
	}
}

func TestReorderWithinWindowAndTooOld(t *testing.T) {
	a, b := sessions(0)
	var ds []datagram
	for seq := range uint32(ReplayWindow + 10) {
		ds = append(ds, seal(t, a, seq, fmt.Sprint(seq)))
	}
	// Newest first, then the rest backwards: the last ReplayWindow are
	// accepted, older ones are too old.
	for i := len(ds) - 1; i >= 0; i-- {
		_, err := ds[i].open(b)
		tooOld := len(ds)-1-i >= ReplayWindow
		if tooOld != errors.Is(err, ErrReplay) || !tooOld && err != nil {
			t.Fatalf("seq %d: %v", i, err)
		}
	}
}

func TestSealRefusesNonIncreasingSequence(t *testing.T) {
	a, _ := sessions(0)
	seal(t, a, 10, "a")
	for _, seq := range []uint32{10, 9, 10 + 1<<31} {
		if _, err := a.Seal(nil, seq, testHeader(seq), nil); !errors.Is(err, ErrSequence) {
			t.Errorf("seq %d: %v", seq, err)
		}
	}
	seal(t, a, 12, "skips are fine")
}

// The 32-bit wire sequence wraps; the session extends it to 64 bits, so
// nonces never repeat and the replay window keeps working across the wrap.
func TestSequenceWrap(t *testing.T) {
	a, b := sessions(0)
	start := uint32(1<<32 - 5)
	var ds []datagram
	for i := range uint32(10) {
		ds = append(ds, seal(t, a, start+i, fmt.Sprint(i)))
	}
	for _, i := range []int{0, 2, 1, 6, 5, 9, 3, 4, 8, 7} {
		if got, err := ds[i].open(b); err != nil || got != fmt.Sprint(i) {
			t.Fatalf("datagram %d (seq %d): %q %v", i, ds[i].seq, got, err)
		}
	}
	for _, d := range ds {
		if _, err := d.open(b); !errors.Is(err, ErrReplay) {
			t.Fatalf("replay of seq %d after wrap: %v", d.seq, err)
		}
	}
}

// With a small threshold, both directions change key phase many times;
// datagrams reordered across phase changes still open, exactly once.
func TestRekeyAcrossThreshold(t *testing.T) {
	const rekey = 8
	a, b := sessions(rekey)
	rng := rand.New(rand.NewPCG(1, 2))
	var ds []datagram
	for seq := range uint32(100) {
		ds = append(ds, seal(t, a, seq, fmt.Sprint(seq)))
	}
	// Phases alternate every rekey datagrams.
	for i, d := range ds {
		if want := byte(i/rekey) & 1; d.sealed[0] != want {
			t.Fatalf("datagram %d key phase %d, want %d", i, d.sealed[0], want)
		}
	}
	// Deliver with local reordering (swap neighbours, including across
	// phase boundaries), never more than a phase apart.
	order := make([]int, len(ds))
	for i := range order {
		order[i] = i
	}
	for i := 0; i+1 < len(order); i += 2 {
		if rng.IntN(2) == 0 {
			order[i], order[i+1] = order[i+1], order[i]
		}
	}
	order[7], order[8] = order[8], order[7] // a straggler from phase 0 after phase 1 began
	for _, i := range order {
		if i == 2 {
			continue // held back: delivered after its key is gone
		}
		if got, err := ds[i].open(b); err != nil || got != fmt.Sprint(i) {
			t.Fatalf("datagram %d: %q %v", i, got, err)
		}
	}
	sa, sb := a.Stats(), b.Stats()
	if sa.KeyUpdatesSent != 99/rekey || sb.KeyUpdatesReceived != sa.KeyUpdatesSent || sb.Opened != 99 {
		t.Fatalf("sender %+v receiver %+v", sa, sb)
	}
	// The other direction rekeys independently.
	for seq := range uint32(30) {
		if _, err := seal(t, b, 500+seq, "back").open(a); err != nil {
			t.Fatal(err)
		}
	}
	if a.Stats().KeyUpdatesReceived != 29/rekey {
		t.Fatalf("reverse direction %+v", a.Stats())
	}
	// A datagram sealed with a key two phases old no longer opens: it is
	// refused as too old without trying the current keys.
	old := ds[2]
	if _, err := old.open(b); !errors.Is(err, ErrReplay) || b.Stats().Tampered != 0 {
		t.Fatalf("two phases old: %v, %+v", err, b.Stats())
	}
}

// Keys differ per phase: the same plaintext and sequence under the next
// phase is another ciphertext, and a receiver cannot be made to skip a
// phase by a forged phase bit.
func TestForgedKeyPhaseBit(t *testing.T) {
	a, b := sessions(0)
	d := seal(t, a, 1, "hello")
	d.sealed[0] ^= flagKeyPhase
	if _, err := d.open(b); !errors.Is(err, ErrAuth) {
		t.Fatalf("flipped phase bit: %v", err)
	}
	if b.Stats().KeyUpdatesReceived != 0 {
		t.Fatal("a forged phase bit changed keys")
	}
}
