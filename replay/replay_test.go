package replay_test

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/replay"
)

var (
	update = flag.Bool("update", false, "rewrite golden files in testdata")
	long   = flag.Bool("long", false, "flip every bit of the file, not one a byte")
)

// TestRoundTrip: what the encoder writes, the reader reads back, and the
// chain verifies with the key that signed it.
func TestRoundTrip(t *testing.T) {
	rec := build(t, 4, 200, 30)
	r, err := replay.Read(rec.file)
	check(t, err)
	if want := testHeader(4, 30); !reflect.DeepEqual(withoutKey(r.Header), want) {
		t.Errorf("header %+v, want %+v", r.Header, want)
	}
	if !r.Header.RelayKey.Equal(testKey(1).Public()) {
		t.Errorf("relay key %x", []byte(r.Header.RelayKey))
	}
	if len(r.Frames) != len(rec.frames) {
		t.Fatalf("%d frames, want %d", len(r.Frames), len(rec.frames))
	}
	for i := range rec.frames {
		if !sameOrders(r.Frames[i].Orders, rec.frames[i].Orders) || r.Frames[i].Tick != rec.frames[i].Tick {
			t.Fatalf("frame %d differs:\n got %+v\nwant %+v", i, r.Frames[i], rec.frames[i])
		}
	}
	if len(r.Syncs) != 40 || r.Syncs[3] != (replay.SyncHash{Tick: 20, Hash: 0xC0FFEE + 20}) {
		t.Errorf("syncs %v", r.Syncs)
	}
	if len(r.Qos) != 1 || r.Qos[0].NewDeadlineUs != 70_000 {
		t.Errorf("qos %v", r.Qos)
	}
	if r.Footer == nil || *r.Footer != (replay.Footer{Ticks: 200, FinalTick: 200, FinalHash: 0xF1A1}) || r.Truncated {
		t.Errorf("footer %+v, truncated %v", r.Footer, r.Truncated)
	}
	check(t, r.Verify(nil))
	check(t, r.Verify(testKey(1).Public().(ed25519.PublicKey)))
	if r.Signed() != 200/30+1 {
		t.Errorf("%d signatures", r.Signed())
	}
}

func withoutKey(h replay.Header) replay.Header { h.RelayKey = nil; return h }

func sameOrders(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Len() == 0 && vb.Len() == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// TestGolden pins format version 1 byte for byte: a small file (three
// players, eight ticks, a signature every four frames) as hex, 32 bytes a
// line. Regenerate on purpose with -update.
func TestGolden(t *testing.T) {
	rec := build(t, 3, 8, 4)
	var b strings.Builder
	b.WriteString("# replay format v1: 3 players, 8 ticks of ordertraffic seed 7, a signature every 4 frames; hex, 32 bytes a line\n")
	for s := rec.file; len(s) > 0; {
		n := min(32, len(s))
		b.WriteString(hex.EncodeToString(s[:n]))
		b.WriteByte('\n')
		s = s[n:]
	}
	path := filepath.Join("testdata", "small_v1.golden")
	if *update {
		check(t, os.MkdirAll("testdata", 0o755))
		check(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	check(t, err)
	if b.String() != string(want) {
		t.Fatalf("replay bytes differ from %s; run with -update only if the format change is intended", path)
	}
}

// TestTruncatedAtEveryByte cuts a small file at every byte: the reader
// returns exactly the frames whose records end before the cut, and no
// cut short of the whole file passes as a finished, signed replay.
func TestTruncatedAtEveryByte(t *testing.T) {
	rec := build(t, 2, 12, 4)
	for cut := range len(rec.file) {
		r, err := replay.Read(rec.file[:cut])
		if r == nil {
			if !errors.Is(err, replay.ErrTruncated) {
				t.Fatalf("cut at %d: %v, want a truncated header", cut, err)
			}
			continue
		}
		if err != nil && !errors.Is(err, replay.ErrTruncated) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if r.Truncated != (err != nil) || r.Whole > int64(cut) {
			t.Fatalf("cut at %d: truncated %v, whole %d, err %v", cut, r.Truncated, r.Whole, err)
		}
		want := 0
		for _, end := range rec.ends {
			if end <= cut {
				want++
			}
		}
		if len(r.Frames) != want {
			t.Fatalf("cut at %d: %d frames, want %d", cut, len(r.Frames), want)
		}
		for i := range r.Frames {
			if r.Frames[i].Tick != uint64(i+1) {
				t.Fatalf("cut at %d: frame %d is tick %d", cut, i, r.Frames[i].Tick)
			}
		}
		if err == nil && r.Verify(nil) == nil && r.Footer != nil {
			t.Fatalf("cut at %d: passes as a whole replay", cut)
		}
	}
}

// TestEveryByteFlipDetected flips each byte of a signed file in turn (a
// different bit of each, all eight over eight neighbours; every bit with
// -long): either the file no longer parses or the chain no longer
// verifies with the key that signed it. No byte (header, frames, hashes,
// footer, signatures) can change unnoticed.
func TestEveryByteFlipDetected(t *testing.T) {
	rec := build(t, 2, 10, 4)
	key := testKey(1).Public().(ed25519.PublicKey)
	b := make([]byte, len(rec.file))
	for i := range rec.file {
		for bit := range 8 {
			if !*long && bit != i%8 {
				continue
			}
			copy(b, rec.file)
			b[i] ^= 1 << bit
			r, err := replay.Read(b)
			if err == nil && r.Verify(key) == nil && r.Footer != nil {
				t.Fatalf("flip of bit %d of byte %d passes", bit, i)
			}
		}
	}
}

// TestForgedFramesNamed: a forger who changes a frame and signs again
// with its own key produces a file that verifies only against its own
// key; one that writes the genuine key into the header fails at the
// first tick of the first segment it re-signed.
func TestForgedFramesNamed(t *testing.T) {
	genuine := testKey(1).Public().(ed25519.PublicKey)
	frames := build(t, 2, 20, 5).frames
	frames[12].Orders = frames[12].Orders[:0] // the forger erases tick 12's orders
	forge := func() []byte {
		var out offsets
		e, err := replay.NewEncoder(&out, testHeader(2, 5), testKey(9))
		check(t, err)
		for _, f := range frames {
			check(t, e.Frame(f))
		}
		check(t, e.Finish(replay.Footer{Ticks: 20}))
		return out.Bytes()
	}
	r, err := replay.Read(forge())
	check(t, err)
	if err := r.Verify(nil); err != nil {
		t.Fatalf("the forger's file against its own key: %v", err)
	}
	if err := r.Verify(genuine); !errors.Is(err, replay.ErrKey) {
		t.Fatalf("the forger's file against the genuine key: %v, want ErrKey", err)
	}
	// The forger writes the genuine key into the header: the header is
	// chained, so the first segment fails.
	f := forge()
	i := strings.Index(string(f), string(testKey(9).Public().(ed25519.PublicKey)))
	copy(f[i:], genuine)
	r, err = replay.Read(f)
	check(t, err)
	var te *replay.TickError
	if err := r.Verify(genuine); !errors.As(err, &te) || !errors.Is(err, replay.ErrSignature) || te.Tick != 1 {
		t.Fatalf("verify: %v, want a bad signature at tick 1", err)
	}
}

// TestBadSignatureNamesItsTicks: a signature replaced by garbage fails
// at the first tick of the frames it covers.
func TestBadSignatureNamesItsTicks(t *testing.T) {
	rec := build(t, 2, 20, 5)
	b := append([]byte(nil), rec.file...)
	// The third signature follows frame 15's record and covers ticks
	// 11..15; its fourth byte is inside the signature itself (kind,
	// length, tick, signature).
	b[rec.ends[14]+3] ^= 0xFF
	r, err := replay.Read(b)
	check(t, err)
	var te *replay.TickError
	if err := r.Verify(nil); !errors.As(err, &te) || te.Tick != 11 {
		t.Fatalf("verify: %v, want a bad signature at tick 11", err)
	}
}
