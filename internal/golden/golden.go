// Package golden compares a test's result lines with a file under
// testdata, for the golden hash tests of the deterministic simulations
// (clients on every architecture must compute the same hashes: CI runs
// them with GOARCH=386 too).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update-golden", false, "rewrite the golden files of the tests run from the current results")

// Check fails t unless lines equal the lines of testdata/name; with
// -update-golden it writes them there instead.
func Check(t *testing.T, name string, lines []string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	got := strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with -update-golden)", err)
	}
	if got != string(want) {
		t.Fatalf("golden hashes changed (regenerate on purpose with -update-golden):\ngot:\n%s\nwant:\n%s", got, want)
	}
}
