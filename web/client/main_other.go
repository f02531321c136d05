//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "the tickwire web client runs in a browser: build it with GOOS=js GOARCH=wasm (go generate ./web/page)")
	os.Exit(2)
}
