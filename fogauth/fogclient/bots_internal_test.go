package fogclient

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDumperRenamesAtClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dump.jsonl")
	d, err := newDumper(path)
	if err != nil {
		t.Fatal(err)
	}
	d.write(3, 7, []byte{0x20, 1})
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the dump exists before the run ends: %v", err)
	}
	if err := d.close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != `{"player":3,"tick":7,"hex":"2001"}`+"\n" {
		t.Fatalf("dump %q, %v", b, err)
	}
}
