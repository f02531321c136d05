package transport

import (
	"net"
	"sync"
	"sync/atomic"

	"golang.org/x/net/ipv4"
)

// segmenter writes batches of datagrams (sendmmsg on Linux) and, where
// the kernel offers UDP generic segmentation (UDP_SEGMENT), sends each
// run of datagrams to one peer of one size as one message the kernel
// splits: the run goes through the network stack once instead of once
// per datagram. The peer receives the same datagrams either way. When
// the kernel refuses a segmented message (a device without checksum
// offload answers EIO) the run leaves unsegmented and the segmenter
// sends plain batches from then on.
//
// A segmenter is safe for concurrent use.
type segmenter struct {
	conn    batchWriter
	off     atomic.Bool // no segmentation: unsupported, or refused once
	scratch sync.Pool   // *segmentScratch
}

// The largest run: the kernel's UDP_MAX_SEGMENTS (64 before Linux 6.2)
// and one IP packet (64 KiB with its headers).
const (
	maxSegments    = 64
	maxSegmentRun  = 65000
	minSegmentRun  = 2 // a run of one is an ordinary datagram
	segmentCmsgLen = 2 // the segment size, a native-endian uint16
)

// newSegmenter writes to conn, segmenting if gso says the socket can.
func newSegmenter(conn batchWriter, gso bool) *segmenter {
	s := &segmenter{conn: conn}
	s.off.Store(!gso)
	return s
}

// batchWriter writes several datagrams per call: ipv4.PacketConn (and
// ipv6.PacketConn, whose Message is the same type).
type batchWriter interface {
	WriteBatch(ms []ipv4.Message, flags int) (int, error)
}

// segmentScratch holds one write's coalesced messages.
type segmentScratch struct {
	out    []ipv4.Message
	starts []int // index in the caller's batch of each message's first datagram
	bufs   [][]byte
	oob    []byte
}

// write sends ms, one datagram each (one buffer, its own address), in as
// few system calls and stack passes as the kernel allows. It stops at the
// first datagram the kernel refuses, as a batch write does.
func (s *segmenter) write(ms []ipv4.Message) error {
	if s.off.Load() || !hasRun(ms) {
		return writeAll(s.conn, ms)
	}
	sc, _ := s.scratch.Get().(*segmentScratch)
	if sc == nil {
		sc = &segmentScratch{}
	}
	defer s.scratch.Put(sc)
	sc.coalesce(ms)
	defer sc.clear()
	out, starts := sc.out, sc.starts
	for len(out) > 0 {
		n, err := s.conn.WriteBatch(out, 0)
		if err == nil && n == 0 {
			return nil
		}
		out, starts = out[n:], starts[n:]
		if err == nil {
			continue
		}
		if len(out) == 0 || len(out[0].Buffers) < minSegmentRun {
			return err
		}
		// A segmented message failed: send the rest plainly. If that
		// works, the kernel refused segmentation, so stop asking.
		if err := writeAll(s.conn, ms[starts[0]:]); err != nil {
			return err
		}
		s.off.Store(true)
		return nil
	}
	return nil
}

// writeAll writes ms in batches until done or an error.
func writeAll(conn batchWriter, ms []ipv4.Message) error {
	for len(ms) > 0 {
		n, err := conn.WriteBatch(ms, 0)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		ms = ms[n:]
	}
	return nil
}

// runEnd is the end of the run of datagrams that ms[i] starts: the
// following datagrams to the same address of ms[i]'s size, the last of
// which may be shorter, within the kernel's limits.
func runEnd(ms []ipv4.Message, i int) int {
	if len(ms[i].Buffers) != 1 {
		return i + 1
	}
	size := len(ms[i].Buffers[0])
	total := size
	j := i + 1
	for ; j < len(ms) && j-i < maxSegments; j++ {
		m := ms[j]
		if len(m.Buffers) != 1 || len(m.Buffers[0]) > size || total+len(m.Buffers[0]) > maxSegmentRun || !sameAddr(m.Addr, ms[i].Addr) {
			break
		}
		total += len(m.Buffers[0])
		if len(m.Buffers[0]) < size {
			return j + 1 // a shorter datagram ends the run
		}
	}
	return j
}

// hasRun reports whether ms holds a run worth segmenting.
func hasRun(ms []ipv4.Message) bool {
	for i := 0; i < len(ms); {
		j := runEnd(ms, i)
		if j-i >= minSegmentRun {
			return true
		}
		i = j
	}
	return false
}

// coalesce fills sc with ms's runs, each as one message whose buffers are
// the run's datagrams and whose control data gives the segment size.
func (sc *segmentScratch) coalesce(ms []ipv4.Message) {
	// Sized up front: the messages' slices of bufs and oob must not move.
	sc.bufs = slicesGrow(sc.bufs[:0], len(ms))
	if n := len(ms) * segmentCmsgSpace; cap(sc.oob) < n {
		sc.oob = make([]byte, n)
	}
	sc.out, sc.starts = sc.out[:0], sc.starts[:0]
	oob := 0
	for i := 0; i < len(ms); {
		j := runEnd(ms, i)
		m := ipv4.Message{Addr: ms[i].Addr, Buffers: ms[i].Buffers}
		if j-i >= minSegmentRun {
			start := len(sc.bufs)
			for _, d := range ms[i:j] {
				sc.bufs = append(sc.bufs, d.Buffers[0])
			}
			m.Buffers = sc.bufs[start:len(sc.bufs):len(sc.bufs)]
			m.OOB = putSegmentSize(sc.oob[oob:oob+segmentCmsgSpace:oob+segmentCmsgSpace], len(ms[i].Buffers[0]))
			oob += segmentCmsgSpace
		}
		sc.out = append(sc.out, m)
		sc.starts = append(sc.starts, i)
		i = j
	}
}

// clear drops the references to the caller's datagrams and addresses.
func (sc *segmentScratch) clear() {
	clear(sc.out)
	clear(sc.bufs)
}

func slicesGrow(b [][]byte, n int) [][]byte {
	if cap(b) < n {
		return make([][]byte, 0, n)
	}
	return b
}

// sameAddr reports whether two addresses are the same UDP peer.
func sameAddr(a, b net.Addr) bool {
	if a == b {
		return true
	}
	ua, ok1 := a.(*net.UDPAddr)
	ub, ok2 := b.(*net.UDPAddr)
	return ok1 && ok2 && ua.Port == ub.Port && ua.Zone == ub.Zone && ua.IP.Equal(ub.IP)
}
