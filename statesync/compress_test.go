package statesync_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/msg"
)

func TestCompressionRule(t *testing.T) {
	c := statesync.NewCompressor()
	small := bytes.Repeat([]byte{1}, statesync.CompressThreshold)
	if enc, out := c.Encode(nil, small); enc != msg.Raw || len(out) != len(small) {
		t.Fatal("data at the threshold compressed")
	}
	big := bytes.Repeat([]byte("entity"), 200)
	enc, out := c.Encode(nil, big)
	if enc != msg.Zstd || len(out) > len(big)*85/100 {
		t.Fatalf("compressible data: encoding %d, %d of %d bytes", enc, len(out), len(big))
	}
	back, err := c.Decode(nil, enc, out)
	if err != nil || !bytes.Equal(back, big) {
		t.Fatalf("round trip: %v", err)
	}
	noise := make([]byte, 2000)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	if enc, _ := c.Encode(nil, noise); enc != msg.Raw {
		t.Fatal("incompressible data sent compressed")
	}
}

func TestDecompressionBounded(t *testing.T) {
	enc, _ := zstd.NewWriter(nil)
	bomb := enc.EncodeAll(make([]byte, statesync.MaxDecompressed+1), nil)
	c := statesync.NewCompressor()
	if _, err := c.Decode(nil, msg.Zstd, bomb); err == nil {
		t.Fatalf("a %d-byte frame decompressed beyond the limit", len(bomb))
	}
}
