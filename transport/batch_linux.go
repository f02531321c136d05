//go:build linux

package transport

import (
	"net"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// batchConn reads and writes several datagrams per system call
// (recvmmsg/sendmmsg), segmenting runs of datagrams to one peer where the
// kernel can (segmenter). ipv6.PacketConn has the same methods as
// ipv4.PacketConn, as ipv6.Message is the same type as ipv4.Message.
type batchConn = *udpBatch

type udpBatch struct {
	reader interface {
		ReadBatch(ms []ipv4.Message, flags int) (int, error)
	}
	*segmenter
}

// ReadBatch reads up to len(ms) datagrams.
func (u *udpBatch) ReadBatch(ms []ipv4.Message, flags int) (int, error) {
	return u.reader.ReadBatch(ms, flags)
}

// readBatchSize is the most datagrams one recvmmsg reads.
const readBatchSize = 64

func newBatchConn(pc net.PacketConn) batchConn {
	uc, ok := pc.(*net.UDPConn)
	if !ok {
		return nil
	}
	gso := segmentSupported(uc)
	if la, ok := uc.LocalAddr().(*net.UDPAddr); ok && la.IP.To4() != nil {
		c := ipv4.NewPacketConn(uc)
		return &udpBatch{reader: c, segmenter: newSegmenter(c, gso)}
	}
	c := ipv6.NewPacketConn(uc)
	return &udpBatch{reader: c, segmenter: newSegmenter(c, gso)}
}

func (ep *endpoint) readBatches() {
	// Buffers of twice the MTU: larger datagrams are truncated and dropped
	// as malformed.
	size := min(2*ep.set.mtu, 1<<16)
	ms := make([]ipv4.Message, readBatchSize)
	for i := range ms {
		ms[i].Buffers = [][]byte{make([]byte, size)}
	}
	var rb readBatch
	for {
		n, err := ep.batch.ReadBatch(ms, 0)
		if err != nil {
			if ep.fatal(err) {
				return
			}
			continue
		}
		for i := range n {
			if ms[i].N < size {
				ep.route(ms[i].Buffers[0][:ms[i].N], ms[i].Addr, &rb)
			}
		}
		rb.answer()
	}
}

func (ep *endpoint) writeBatch(addr net.Addr, dgs [][]byte) {
	ms := make([]ipv4.Message, len(dgs))
	for i, d := range dgs {
		ms[i] = ipv4.Message{Buffers: [][]byte{d}, Addr: addr}
	}
	ep.writeMessages(ms)
}

// writeMessages sends datagrams, each to its own address, in as few
// system calls as the kernel allows; a datagram the kernel refuses ends
// the write (the sessions recover what was lost).
func (ep *endpoint) writeMessages(ms []ipv4.Message) {
	_ = ep.batch.write(ms)
}
