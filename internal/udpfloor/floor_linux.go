//go:build linux

package udpfloor

import (
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/ipv4"
	"golang.org/x/sys/unix"
)

// window is the most datagrams in flight: two batches of small datagrams
// stay under a default socket receive buffer (the kernel charges about a
// kilobyte per small datagram), so none is dropped.
const window = 2 * Batch

func measure(size, count int, timeout time.Duration) (Floor, error) {
	f := Floor{Size: size}
	rc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return f, err
	}
	defer rc.Close()
	sc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return f, err
	}
	defer sc.Close()
	deadline := time.Now().Add(timeout)
	var received atomic.Int64
	progress := make(chan struct{}, 1)
	var recvCPU, sendCPU time.Duration
	var wg sync.WaitGroup
	wg.Go(func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		recvCPU = receive(ipv4.NewPacketConn(rc), rc, size, count, &received, progress)
	})
	wg.Go(func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		sendCPU, f.Sent = send(ipv4.NewPacketConn(sc), rc.LocalAddr(), size, count, deadline, &received, progress)
		// What is still in flight arrives within moments.
		_ = rc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	})
	wg.Wait()
	f.Received = int(received.Load())
	if f.Received == 0 || f.Sent == 0 {
		return f, ErrNoDatagrams
	}
	f.SendUs = float64(sendCPU) / float64(time.Microsecond) / float64(f.Sent)
	f.RecvUs = float64(recvCPU) / float64(time.Microsecond) / float64(f.Received)
	return f, nil
}

// receive reads until count datagrams arrived or the sender is done and
// the read deadline it sets passes, and returns its thread's CPU time.
func receive(pc *ipv4.PacketConn, c *net.UDPConn, size, count int, received *atomic.Int64, progress chan struct{}) time.Duration {
	ms := messages(size)
	_ = c.SetReadBuffer(1 << 20)
	start := threadCPU()
	for received.Load() < int64(count) {
		n, err := pc.ReadBatch(ms, 0)
		if err != nil {
			break
		}
		received.Add(int64(n))
		select {
		case progress <- struct{}{}:
		default:
		}
	}
	return threadCPU() - start
}

// send writes count datagrams in batches, waiting for the receiver when
// window datagrams are in flight, and returns its thread's CPU time and
// the datagrams sent.
func send(pc *ipv4.PacketConn, to net.Addr, size, count int, deadline time.Time, received *atomic.Int64, progress chan struct{}) (time.Duration, int) {
	ms := messages(size)
	for i := range ms {
		ms[i].Addr = to
	}
	sent := 0
	timeout := time.NewTimer(time.Until(deadline))
	defer timeout.Stop()
	start := threadCPU()
	for sent < count {
		for int64(sent)-received.Load() > window {
			select {
			case <-progress:
			case <-timeout.C:
				return threadCPU() - start, sent
			}
		}
		n, err := pc.WriteBatch(ms[:min(Batch, count-sent)], 0)
		if err != nil {
			break
		}
		sent += n
	}
	return threadCPU() - start, sent
}

func messages(size int) []ipv4.Message {
	ms := make([]ipv4.Message, Batch)
	for i := range ms {
		ms[i].Buffers = [][]byte{make([]byte, max(size, 1))}
	}
	return ms
}

// threadCPU is the calling thread's user+system CPU time.
func threadCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
