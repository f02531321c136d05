package layering

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pureCores are the protocol cores driven by an explicit now: they take
// time as an argument and never read the clock, sleep or arm a timer.
var pureCores = []string{"lockstep/relay", "fogauth", "predict", "statesync", "examples/echo"}

// clockUses are the time package's functions that read the clock or wait
// on it.
var clockUses = []string{"Now", "Since", "Until", "After", "AfterFunc", "Sleep", "NewTimer", "NewTicker", "Tick"}

// clockReads lists where the Go files of dir (not its tests, not its
// subpackages) read the clock, as "file:line: time.F".
func clockReads(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var found []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		local := ""
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "time" {
				local = "time"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		if local == "" || local == "_" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == local && slices.Contains(clockUses, sel.Sel.Name) {
				found = append(found, fmt.Sprintf("%s: time.%s", fset.Position(sel.Pos()), sel.Sel.Name))
			}
			return true
		})
	}
	return found, nil
}

// TestCoresReadNoClock: no pure core reads the clock, so everything they
// do that depends on time takes an explicit now (fogauth.Room.Step and
// statesync.Client.Step take none: what they do is counted in ticks and
// frames).
func TestCoresReadNoClock(t *testing.T) {
	for _, pkg := range pureCores {
		found, err := clockReads(filepath.Join("..", "..", pkg))
		if err != nil {
			t.Fatal(err)
		}
		if len(found) == 0 {
			continue
		}
		t.Errorf("the pure core %s reads the clock; take now as an argument instead:\n%s", pkg, strings.Join(found, "\n"))
	}
}

// TestClockReadsFound: the check finds a clock read however the time
// package is named, and passes durations and a local "time" that is not
// the package.
func TestClockReadsFound(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{"package p\nimport \"time\"\nfunc f() time.Time { return time.Now() }\n", 1},
		{"package p\nimport clock \"time\"\nfunc f() { clock.Sleep(clock.Second); _ = clock.After(1) }\n", 2},
		{"package p\nimport \"time\"\nfunc f(now time.Duration) time.Duration { return now + time.Second }\n", 0},
		{"package p\ntype t struct{ Now int }\nfunc f(time t) int { return time.Now }\n", 0},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package p\nimport \"time\"\nvar _ = time.Now()\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		found, err := clockReads(dir)
		if err != nil || len(found) != tc.want {
			t.Errorf("%q: found %v (%v), want %d", tc.src, found, err, tc.want)
		}
	}
}
