//go:build linux

package transport

import (
	"encoding/binary"
	"net"
	"unsafe"

	"golang.org/x/sys/unix"
)

// segmentCmsgSpace is the control data of one UDP_SEGMENT message.
var segmentCmsgSpace = unix.CmsgSpace(segmentCmsgLen)

// putSegmentSize writes the UDP_SEGMENT control message giving the size
// of a segmented message's datagrams into b (segmentCmsgSpace bytes).
func putSegmentSize(b []byte, size int) []byte {
	h := (*unix.Cmsghdr)(unsafe.Pointer(&b[0]))
	h.Level = unix.SOL_UDP
	h.Type = unix.UDP_SEGMENT
	h.SetLen(unix.CmsgLen(segmentCmsgLen))
	binary.NativeEndian.PutUint16(b[unix.CmsgLen(0):], uint16(size))
	return b
}

// segmentSupported reports whether the kernel knows UDP_SEGMENT on uc
// (Linux 4.18 and later). An older kernel ignores the control message and
// would send a run as one large datagram, so it is asked first.
func segmentSupported(uc *net.UDPConn) bool {
	rc, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		_, serr = unix.GetsockoptInt(int(fd), unix.IPPROTO_UDP, unix.UDP_SEGMENT)
	}); err != nil {
		return false
	}
	return serr == nil
}
