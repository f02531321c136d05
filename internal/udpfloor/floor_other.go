//go:build !linux

package udpfloor

import (
	"errors"
	"time"
)

// ErrUnsupported reports a platform without batched UDP system calls.
var ErrUnsupported = errors.New("udpfloor: batched UDP needs Linux")

func measure(size, count int, timeout time.Duration) (Floor, error) {
	return Floor{Size: size}, ErrUnsupported
}
