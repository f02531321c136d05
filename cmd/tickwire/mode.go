package main

import "strings"

// splitMode takes the --mode option (--mode NAME or --mode=NAME) out of
// args: demo and bot run the network model it names ("" when absent:
// lockstep).
func splitMode(args []string) (mode string, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "--mode" || a == "-mode") && i+1 < len(args):
			mode = args[i+1]
			i++
		case strings.HasPrefix(a, "--mode="), strings.HasPrefix(a, "-mode="):
			mode = a[strings.Index(a, "=")+1:]
		default:
			rest = append(rest, a)
		}
	}
	return mode, rest
}
