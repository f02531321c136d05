//go:build !linux

package transport

import "syscall"

const reusePortSupported = false

func reusePort(_, _ string, _ syscall.RawConn) error { return nil }
