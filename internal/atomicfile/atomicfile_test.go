package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	for _, s := range []string{"first", "second"} {
		if err := Write(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != s {
			t.Fatalf("read %q, want %q", b, s)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%d files left, want 1", len(ents))
	}
	if err := Write(filepath.Join(dir, "no", "such", "dir"), nil, 0o644); err == nil {
		t.Fatal("a write into a missing directory succeeded")
	}
}
