package transport

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/tickwire/tickwire/secure"
)

// TestOpenInPlace: a sealed datagram opens inside its own buffer, without
// allocating, to exactly the plaintext datagram that was sealed; a replay
// of it and a copy with any single bit flipped are refused, and neither
// disturbs the next datagram.
func TestOpenInPlace(t *testing.T) {
	client, server := handshakeInMemory(t)
	now := time.Unix(1_700_000_000, 0)
	set, err := Config{Security: &SecurityConfig{}}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	plain := clientDatagrams(set, now, 6, time.Second) // the hello goes again
	var sealed [][]byte
	for _, d := range client.seal(plain) {
		sealed = append(sealed, bytes.Clone(d))
	}
	if len(sealed) != len(plain) || len(plain) < 2 {
		t.Fatalf("sealed %d of %d plaintext datagrams", len(sealed), len(plain))
	}
	// Every single-bit flip of every datagram is refused first.
	for i, d := range sealed {
		for bit := range len(d) * 8 {
			bad := bytes.Clone(d)
			bad[bit/8] ^= 1 << (bit % 8)
			if _, err := server.open(bad, now); err == nil {
				t.Fatalf("datagram %d with bit %d flipped opened", i, bit)
			}
		}
	}
	bufs := make([][]byte, len(sealed))
	outs := make([][]byte, len(sealed))
	errs := make([]error, len(sealed))
	for i, d := range sealed {
		bufs[i] = bytes.Clone(d)
	}
	k := 0
	allocs := testing.AllocsPerRun(len(sealed)-1, func() { // runs once more to warm up
		outs[k], errs[k] = server.open(bufs[k], now)
		k++
	})
	if allocs != 0 {
		t.Errorf("open allocated %v times per datagram", allocs)
	}
	for i, d := range sealed {
		out := outs[i]
		if errs[i] != nil {
			t.Fatalf("datagram %d: %v", i, errs[i])
		}
		if !bytes.Equal(out, plain[i]) {
			t.Fatalf("datagram %d opened to %x, sealed %x", i, out, plain[i])
		}
		if &out[len(out)-1] != &bufs[i][len(out)] {
			t.Fatalf("datagram %d did not open inside its buffer", i)
		}
		if _, err := server.open(bytes.Clone(d), now); !errors.Is(err, secure.ErrReplay) {
			t.Fatalf("replay of datagram %d: %v, want ErrReplay", i, err)
		}
	}
	if _, err := server.open(nil, now); !errors.Is(err, secure.ErrMalformed) {
		t.Fatalf("empty datagram: %v, want ErrMalformed", err)
	}
}
