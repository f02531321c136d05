//go:build !unix

package transportbench

import "time"

// CPUTime is the process's CPU time; unknown (0) on this system.
func CPUTime() time.Duration { return 0 }

// peakRSS is the peak resident set size; unknown (0) on this system.
func peakRSS() int64 { return 0 }

// currentRSS is the resident set size; unknown (0) on this system.
func currentRSS() int64 { return 0 }
