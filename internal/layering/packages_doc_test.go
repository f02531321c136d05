package layering

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPackagesDocumented: docs/packages.md claims to name every package
// of the module. Each package `go list ./...` prints is named in the
// first column of its table, and each name there is a package (or a
// nested module of its own).
func TestPackagesDocumented(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is needed to list the packages")
	}
	root := moduleRoot(t)
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	modCmd := exec.Command("go", "list", "-m")
	modCmd.Dir = root
	mod, err := modCmd.Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	prefix := strings.TrimSpace(string(mod)) + "/"
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		pkgs = append(pkgs, strings.TrimPrefix(p, prefix))
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "packages.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := documentedPackages(string(doc))
	for i, p := range named {
		if slices.Contains(named[:i], p) {
			t.Errorf("docs/packages.md names %s twice", p)
		}
	}
	for _, p := range pkgs {
		if !slices.Contains(named, p) {
			t.Errorf("package %s is missing from docs/packages.md", p)
		}
	}
	for _, p := range named {
		if _, err := os.Stat(filepath.Join(root, p, "go.mod")); err == nil {
			continue // a module of its own (bench/peers)
		}
		if !slices.Contains(pkgs, p) {
			t.Errorf("docs/packages.md names %s, which is no package of the module", p)
		}
	}
}

// documentedPackages returns the code spans in the first column of the
// table rows of a packages page.
func documentedPackages(doc string) []string {
	span := regexp.MustCompile("`([^`]+)`")
	var names []string
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), " |")
		for _, m := range span.FindAllStringSubmatch(first, -1) {
			names = append(names, m[1])
		}
	}
	return names
}

// TestPackagesDocumentedCatchesOmissions: the check reads the first
// column only, names in later columns do not count, and several packages
// may share a row.
func TestPackagesDocumentedCatchesOmissions(t *testing.T) {
	doc := "| package | what |\n|---|---|\n| `a/b`, `c` | holds `d` |\n| `e` | x |\n"
	if got := documentedPackages(doc); !slices.Equal(got, []string{"a/b", "c", "e"}) {
		t.Fatalf("documented %v, want a/b, c and e", got)
	}
}
