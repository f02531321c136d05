package main

import "strings"

// splitMode takes a --mode flag (--mode X or --mode=X) out of args, for
// subcommands that play several network models.
func splitMode(args []string) (mode string, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--mode" || a == "-mode":
			if i+1 < len(args) {
				mode = args[i+1]
				i++
			}
			continue
		case strings.HasPrefix(a, "--mode=") || strings.HasPrefix(a, "-mode="):
			_, mode, _ = strings.Cut(a, "=")
			continue
		}
		rest = append(rest, a)
	}
	return mode, rest
}
