package protocol_test

import (
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickwire/tickwire/internal/ordertraffic"
	"github.com/tickwire/tickwire/protocol"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// TestNativeGolden pins the version 1 wire format: any change to the bytes
// the codec produces fails here. Regenerate on purpose with -update.
func TestNativeGolden(t *testing.T) {
	ticks := ordertraffic.Generate(ordertraffic.Model{Seed: 42, Ticks: 60, Players: 4})
	packets, err := protocol.NativeCodec{}.Encode(nil, ticks)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# NativeCodec v1: ordertraffic seed 42, 4 players, 60 ticks; one packet per line, hex\n")
	for _, p := range packets {
		b.WriteString(hex.EncodeToString(p))
		b.WriteByte('\n')
	}
	path := filepath.Join("testdata", "native_v1.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Fatalf("wire bytes differ from %s; run with -update only if the format change is intended", path)
	}
	// The golden bytes also decode back to the ticks.
	var got []protocol.TickOrders
	for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n")[1:] {
		p, err := hex.DecodeString(line)
		if err != nil {
			t.Fatal(err)
		}
		if got, err = (protocol.NativeCodec{}).Decode(got, p); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != len(ticks) {
		t.Fatalf("golden decodes to %d ticks, want %d", len(got), len(ticks))
	}
}
