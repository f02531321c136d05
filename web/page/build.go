package page

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ClientPackage is the import path of the WebAssembly client.
const ClientPackage = "github.com/tickwire/tickwire/web/client"

// ErrNoClient means the page has no client to serve: none is embedded
// and the go command could not build one.
var ErrNoClient = errors.New("page: no WebAssembly client (run `go generate ./web/page`, or run from the tickwire source tree with Go installed)")

// BuildClient builds the client into dir as tw.wasm, with the
// wasm_exec.js of the same Go beside it. It runs the go command, from the
// current directory, which must be inside the tickwire module.
func BuildClient(ctx context.Context, dir string) error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoClient, err)
	}
	root, err := run(ctx, goCmd, nil, "env", "GOROOT")
	if err != nil {
		return err
	}
	if _, err := run(ctx, goCmd, []string{"GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0"},
		"build", "-ldflags=-s -w", "-o", filepath.Join(dir, "tw.wasm"), ClientPackage); err != nil {
		return err
	}
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} { // Go 1.24+, then older
		b, err := os.ReadFile(filepath.Join(strings.TrimSpace(root), p))
		if err == nil {
			return os.WriteFile(filepath.Join(dir, "wasm_exec.js"), b, 0o644)
		}
	}
	return fmt.Errorf("%w: wasm_exec.js not found under GOROOT %s", ErrNoClient, root)
}

func run(ctx context.Context, name string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: go %s: %v: %s", ErrNoClient, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
