package layering

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// browserShell is the one package of the module that may import
// syscall/js: the WebAssembly client's shell. The cores, the transport
// and the network layers build for GOOS=js unchanged.
const browserShell = "web/client"

// TestOnlyTheBrowserShellImportsSyscallJS lists the WebAssembly client's
// dependencies as GOOS=js GOARCH=wasm builds them: syscall/js is imported
// by the shell (so the check is not vacuous) and by no other package of
// the module.
func TestOnlyTheBrowserShellImportsSyscallJS(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is needed to list dependencies")
	}
	cmd := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./"+browserShell)
	cmd.Dir = moduleRoot(t)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var shellUses bool
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], module+"/") {
			continue
		}
		for _, imp := range fields[1:] {
			if imp != "syscall/js" {
				continue
			}
			if fields[0] == module+"/"+browserShell {
				shellUses = true
			} else {
				t.Errorf("%s imports syscall/js: only %s may", fields[0], browserShell)
			}
		}
	}
	if !shellUses {
		t.Errorf("%s does not import syscall/js: is it still the browser shell?", browserShell)
	}
}
