package main

import (
	"context"
	"fmt"
	"io"
)

// runDemo is the README's main job. The reference simulation has not landed
// yet, so it says so plainly.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fmt.Fprintln(stdout, "tickwire demo: the reference simulation (package sim) is not built yet; nothing to run.")
	return nil
}
