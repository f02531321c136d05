//go:build !linux

package transport

import "net"

// Generic segmentation is Linux's: elsewhere batches are plain.

var segmentCmsgSpace = 0

func putSegmentSize(b []byte, _ int) []byte { return b }

func segmentSupported(*net.UDPConn) bool { return false }
