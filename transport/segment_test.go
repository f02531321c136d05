package transport

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/ipv4"
)

// TestCoalesceKeepsEveryDatagram: over random batches (two peers, a few
// sizes), the coalesced messages hold exactly the batch's datagrams in
// order, and each segmented message is a run the kernel accepts: one
// address, at most maxSegments datagrams and maxSegmentRun bytes, every
// datagram of the first one's size but the last, which may be shorter.
func TestCoalesceKeepsEveryDatagram(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 3))
	peers := []net.Addr{&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2},
		&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}} // the first peer again, another pointer
	sizes := []int{1, 80, 1200, 1400}
	var sc segmentScratch
	for round := range 2000 {
		ms := make([]ipv4.Message, rng.IntN(200))
		for i := range ms {
			d := fmt.Appendf(nil, "%d-%d", round, i)
			d = append(d, make([]byte, max(0, sizes[rng.IntN(len(sizes))]-len(d)))...)
			if rng.IntN(4) > 0 && i > 0 { // mostly runs
				d = d[:min(len(d), len(ms[i-1].Buffers[0]))]
				d = append(d, make([]byte, len(ms[i-1].Buffers[0])-len(d))...)
			}
			ms[i] = ipv4.Message{Buffers: [][]byte{d}, Addr: peers[rng.IntN(len(peers))]}
		}
		sc.coalesce(ms)
		i := 0
		for k, m := range sc.out {
			if sc.starts[k] != i {
				t.Fatalf("round %d: message %d starts at %d, want %d", round, k, sc.starts[k], i)
			}
			if len(m.Buffers) > 1 {
				size, total := len(m.Buffers[0]), 0
				for b, d := range m.Buffers {
					total += len(d)
					if len(d) > size || (len(d) < size && b != len(m.Buffers)-1) {
						t.Fatalf("round %d: message %d: datagram %d of %d bytes in a run of %d", round, k, b, len(d), size)
					}
				}
				if len(m.Buffers) > maxSegments || total > maxSegmentRun || len(m.OOB) != segmentCmsgSpace {
					t.Fatalf("round %d: message %d: %d datagrams, %d bytes, %d bytes of control", round, k, len(m.Buffers), total, len(m.OOB))
				}
			}
			for _, d := range m.Buffers {
				if !bytes.Equal(d, ms[i].Buffers[0]) || !sameAddr(m.Addr, ms[i].Addr) {
					t.Fatalf("round %d: datagram %d changed", round, i)
				}
				i++
			}
		}
		if i != len(ms) {
			t.Fatalf("round %d: %d datagrams of %d", round, i, len(ms))
		}
		sc.clear()
	}
}

// countingWriter counts the segmented messages written, and refuses
// them with EIO (as a device without checksum offload does) if refuse,
// counting the refusals.
type countingWriter struct {
	batchWriter
	refuse             bool
	segmented, refused int
}

func (w *countingWriter) WriteBatch(ms []ipv4.Message, flags int) (int, error) {
	for i, m := range ms {
		if len(m.Buffers) > 1 {
			if w.refuse {
				n, err := w.batchWriter.WriteBatch(ms[:i], flags)
				if err == nil && n == i {
					w.refused++
					err = syscall.EIO
				}
				return n, err
			}
			w.segmented++
		}
	}
	return w.batchWriter.WriteBatch(ms, flags)
}

// TestSegmentedDatagramsArriveIntact: over real loopback sockets, a
// batch mixing runs to two peers (a run longer than the kernel's segment
// limit, runs ended by a shorter datagram, single datagrams) arrives as
// the same datagrams, each intact, in order per peer; with generic
// segmentation where the kernel offers it, and, when the kernel refuses
// it, unsegmented with segmentation switched off.
func TestSegmentedDatagramsArriveIntact(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("UDP_SEGMENT is Linux's")
	}
	for _, refuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("refused=%v", refuse), func(t *testing.T) {
			send := listenLoopback(t)
			peers := []*net.UDPConn{listenLoopback(t), listenLoopback(t)}
			if !refuse && !segmentSupported(send) {
				t.Skip("this kernel has no UDP_SEGMENT")
			}
			var ms []ipv4.Message
			want := make([][][]byte, len(peers))
			add := func(peer, n, size int) {
				for range n {
					d := fmt.Appendf(nil, "%d:%d:", peer, len(ms))
					d = append(d, bytes.Repeat([]byte{byte(len(ms))}, size-len(d))...)
					ms = append(ms, ipv4.Message{Buffers: [][]byte{d}, Addr: peers[peer].LocalAddr()})
					want[peer] = append(want[peer], d)
				}
			}
			add(0, 70, 300) // longer than maxSegments
			add(0, 1, 120)  // a shorter last datagram
			add(1, 3, 1200)
			add(0, 1, 50)
			add(1, 5, 40)
			add(1, 1, 900) // longer: a run of its own
			w := &countingWriter{batchWriter: ipv4.NewPacketConn(send), refuse: refuse}
			s := newSegmenter(w, true)
			if err := s.write(ms); err != nil {
				t.Fatal(err)
			}
			if refuse != s.off.Load() || (!refuse && w.segmented == 0) || (refuse && w.refused != 1) {
				t.Fatalf("segmentation off %v after %d segmented messages, %d refused", s.off.Load(), w.segmented, w.refused)
			}
			for p, pc := range peers {
				buf := make([]byte, 1<<16)
				for i, d := range want[p] {
					pc.SetReadDeadline(time.Now().Add(5 * time.Second))
					n, err := pc.Read(buf)
					if err != nil {
						t.Fatalf("peer %d, datagram %d of %d: %v", p, i, len(want[p]), err)
					}
					if !bytes.Equal(buf[:n], d) {
						t.Fatalf("peer %d, datagram %d: %d bytes %q…, want %d bytes %q…", p, i, n, buf[:min(n, 12)], len(d), d[:12])
					}
				}
			}
			// A second write after a refusal goes plainly at once.
			if refuse {
				if err := s.write(ms[:2]); err != nil || w.refused != 1 {
					t.Fatalf("after the refusal: %v, %d refused", err, w.refused)
				}
			}
		})
	}
}

func listenLoopback(t testing.TB) *net.UDPConn {
	t.Helper()
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	pc.SetReadBuffer(1 << 20)
	t.Cleanup(func() { pc.Close() })
	return pc
}

// BenchmarkSegmenter is the sender's cost per datagram of a batch of 64
// datagrams of 100 bytes to one peer over loopback, with generic
// segmentation (one message the kernel splits) and without (sendmmsg of
// 64 messages). The receiver drains what it can; what overflows its
// buffer is dropped after the send, which is what is measured.
func BenchmarkSegmenter(b *testing.B) {
	for _, gso := range []bool{false, true} {
		b.Run(fmt.Sprintf("gso=%v", gso), func(b *testing.B) {
			send, recv := listenLoopback(b), listenLoopback(b)
			if gso && !segmentSupported(send) {
				b.Skip("this kernel has no UDP_SEGMENT")
			}
			go func() {
				buf := make([]byte, 2048)
				for {
					if _, err := recv.Read(buf); err != nil {
						return
					}
				}
			}()
			ms := make([]ipv4.Message, 64)
			for i := range ms {
				ms[i] = ipv4.Message{Buffers: [][]byte{make([]byte, 100)}, Addr: recv.LocalAddr()}
			}
			s := newSegmenter(ipv4.NewPacketConn(send), gso)
			b.ResetTimer()
			for b.Loop() {
				if err := s.write(ms); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ms))/1e3, "µs/datagram")
		})
	}
}
