//go:build !linux

package fogbench

import "time"

// ThreadCPU is only available on Linux; elsewhere it reports false.
func ThreadCPU() (time.Duration, bool) { return 0, false }
