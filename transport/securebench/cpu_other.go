//go:build !unix

package securebench

import "time"

// cpuTime is not measured on this platform: CPU figures stay zero.
func cpuTime() time.Duration { return 0 }
