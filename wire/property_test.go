package wire

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// randomMessage draws a message type and a sequence of fields.
func randomMessage(rng *rand.Rand) (MessageType, []field) {
	types := []MessageType{KeepAlive, ChunkData, ClientHello, 0x7f, 0xbfff, 0xdfffff}
	fields := make([]field, rng.IntN(40))
	for i := range fields {
		fields[i] = randomField(rng, kind(rng.IntN(int(numKinds))))
	}
	return types[rng.IntN(len(types))], fields
}

func buildMessage(t testing.TB, mt MessageType, fields []field) []byte {
	b := NewBuilder(nil, mt)
	for _, f := range fields {
		writeField(b, f)
	}
	m, err := b.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return m
}

// TestPropertyRandomSequences writes random sequences of fields and checks
// that reading them back in the same order yields the same values, consumes
// the whole message, and that re-encoding the values read gives the same
// bytes.
func TestPropertyRandomSequences(t *testing.T) {
	for seed := range uint64(2000) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		mt, fields := randomMessage(rng)
		m := buildMessage(t, mt, fields)

		r := NewReader(m)
		if r.Type() != mt {
			t.Fatalf("seed %d: type %v, want %v", seed, r.Type(), mt)
		}
		read := make([]field, len(fields))
		for i, f := range fields {
			read[i] = readField(r, f.k)
			if !sameField(read[i], f) {
				t.Fatalf("seed %d field %d: read %+v, wrote %+v", seed, i, read[i], f)
			}
		}
		if err := r.Finish(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if again := buildMessage(t, mt, read); !bytes.Equal(again, m) {
			t.Fatalf("seed %d: re-encoding changed the bytes\n% x\n% x", seed, m, again)
		}
	}
}
