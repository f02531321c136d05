package wire

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// addEncodedSeeds seeds a fuzz target with builder output: pairs of a read
// script (the field kinds, one byte each) and the message they encode.
func addEncodedSeeds(f *testing.F) {
	for seed := range uint64(32) {
		rng := rand.New(rand.NewPCG(seed, 0xf022))
		mt, fields := randomMessage(rng)
		script := make([]byte, len(fields))
		for i, fl := range fields {
			script[i] = byte(fl.k)
		}
		f.Add(script, buildMessage(f, mt, fields))
	}
	f.Add([]byte{byte(kArray), byte(kMap)}, []byte{0x01, 0x05, 0x02, 0x00, 0xff, 0xff, 0xff, 0xff, 0x0f})
}

// Script opcodes beyond the field kinds.
const (
	opSkip = byte(numKinds) + iota // Skip(next script byte - 2)
	opFinish
	numOps
)

// FuzzReader drives every Reader method from a fuzz-chosen script over
// arbitrary bytes. It must never panic, the cursor must stay inside the
// message, and the first error must stick.
func FuzzReader(f *testing.F) {
	addEncodedSeeds(f)
	f.Fuzz(func(t *testing.T, script, m []byte) {
		r := NewReader(m)
		var firstErr error
		errOff := -1
		for i := 0; i < len(script); i++ {
			switch op := script[i] % numOps; op {
			case opSkip:
				n := -2
				if i+1 < len(script) {
					i++
					n = int(script[i]) - 2
				}
				r.Skip(n)
			case opFinish:
				r.Finish()
			default:
				f := readField(r, kind(op))
				// A failed single read returns the zero value; compound
				// fields may keep the parts read before the failure.
				single := op < byte(kVec3) || op == byte(kQuantizedAngle)
				if single && r.Err() != nil && !sameField(f, field{k: kind(op)}) {
					t.Fatalf("op %d failed but returned %+v", op, f)
				}
			}
			if r.Offset() < 0 || r.Offset() > len(m) || r.Offset()+r.Remaining() != len(m) {
				t.Fatalf("cursor outside the message: offset %d remaining %d len %d", r.Offset(), r.Remaining(), len(m))
			}
			if r.HasMore() != (r.Valid() && r.Remaining() > 0) || r.Valid() != (r.Err() == nil) {
				t.Fatalf("HasMore %v, Valid %v, Err %v, Remaining %d disagree", r.HasMore(), r.Valid(), r.Err(), r.Remaining())
			}
			if firstErr == nil && r.Err() != nil {
				firstErr, errOff = r.Err(), r.Offset()
			}
			if firstErr != nil && (r.Err() != firstErr || r.Offset() != errOff) {
				t.Fatalf("error changed from %v at %d to %v at %d", firstErr, errOff, r.Err(), r.Offset())
			}
		}
	})
}

// FuzzRoundTrip reads fields from fuzz input by a script, then encodes the
// values read: the result must be byte-for-byte the input consumed (every
// value has one encoding), and decoding it again must give equal values.
func FuzzRoundTrip(f *testing.F) {
	addEncodedSeeds(f)
	f.Fuzz(func(t *testing.T, script, m []byte) {
		r := NewReader(m)
		fields := make([]field, len(script))
		for i, k := range script {
			fields[i] = readField(r, kind(k%byte(numKinds)))
		}
		if !r.Valid() {
			return
		}
		consumed := m[:r.Offset()]
		out := buildMessage(t, r.Type(), fields)
		if !bytes.Equal(out, consumed) {
			t.Fatalf("re-encoded\n% x\nwant\n% x", out, consumed)
		}
		r2 := NewReader(out)
		for i, fl := range fields {
			if got := readField(r2, fl.k); !sameField(got, fl) {
				t.Fatalf("field %d: decoded %+v, encoded %+v", i, got, fl)
			}
		}
		if err := r2.Finish(); err != nil {
			t.Fatal(err)
		}
	})
}
