//go:build linux

package transport

import (
	"syscall"

	"golang.org/x/sys/unix"
)

const reusePortSupported = true

// reusePort sets SO_REUSEPORT on a socket before it is bound.
func reusePort(_, _ string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
	})
	if err != nil {
		return err
	}
	return serr
}
