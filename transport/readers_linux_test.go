package transport

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestListenUDPReaders: sixteen clients connect to a listener with four
// sockets on one port; each gets its own echo back, and the connections
// are spread over the sockets' tables (the kernel hashes each peer to one
// socket: all sixteen on one of four is a chance of one in a billion).
// Every socket has the kernel buffers asked for.
func TestListenUDPReaders(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cfg := Config{Channels: testLanes()}
	const buffer = 1 << 20
	l, err := ListenUDPReaders(ctx, "127.0.0.1:0", Sockets{Readers: 4, Buffer: buffer}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go serveEcho(ctx, l)
	const n = 16
	for i := range n {
		c, err := DialUDP(ctx, l.Addr().String(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		want := fmt.Appendf(nil, "client %d", i)
		if err := c.Send(testLaneOrders, want); err != nil {
			t.Fatal(err)
		}
		c.Flush()
		if m, err := c.Receive(ctx); err != nil || !bytes.Equal(m.Data, want) {
			t.Fatalf("client %d: %q, %v", i, m.Data, err)
		}
	}
	if st := l.Stats(); st.Connections != n {
		t.Fatalf("%d connections, want %d", st.Connections, n)
	}
	shards := 0
	for _, c := range l.ConnectionsPerSocket() {
		if c > 0 {
			shards++
		}
	}
	if len(l.eps) != 4 || shards < 2 {
		t.Fatalf("%d sockets, %d holding connections", len(l.eps), shards)
	}
	for _, ep := range l.eps {
		checkBuffers(t, ep.pc, buffer)
	}
}

// checkBuffers fails t unless pc's kernel buffers are at least size in
// both directions, or the kernel's cap where that is lower.
func checkBuffers(t *testing.T, pc net.PacketConn, size int) {
	t.Helper()
	for _, o := range []struct {
		opt int
		max string
	}{{unix.SO_RCVBUF, "rmem_max"}, {unix.SO_SNDBUF, "wmem_max"}} {
		want := size
		if b, err := os.ReadFile("/proc/sys/net/core/" + o.max); err == nil {
			if capped, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				want = min(want, capped)
			}
		}
		rc, err := pc.(*net.UDPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var got int
		var gerr error
		if err := rc.Control(func(fd uintptr) { got, gerr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, o.opt) }); err != nil || gerr != nil {
			t.Fatal(err, gerr)
		}
		// Linux reports twice what was set (its bookkeeping overhead).
		if got < want {
			t.Errorf("%v: option %d is %d bytes, want at least %d", pc.LocalAddr(), o.opt, got, want)
		}
	}
}
