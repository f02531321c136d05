package transport

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestListenUDPReaders: sixteen clients connect to a listener with four
// sockets on one port; each gets its own echo back, and the connections
// are spread over the sockets' tables (the kernel hashes each peer to one
// socket: all sixteen on one of four is a chance of one in a billion).
func TestListenUDPReaders(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SO_REUSEPORT readers are Linux's")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cfg := Config{Channels: testLanes()}
	l, err := ListenUDPReaders(ctx, "127.0.0.1:0", 4, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept(ctx)
			if err != nil {
				return
			}
			go func() {
				for {
					m, err := c.Receive(ctx)
					if err != nil {
						return
					}
					_ = c.Send(m.Channel, m.Data)
					c.Flush()
				}
			}()
		}
	}()
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
	for _, ep := range l.eps {
		ep.mu.Lock()
		if len(ep.conns) > 0 {
			shards++
		}
		ep.mu.Unlock()
	}
	if len(l.eps) != 4 || shards < 2 {
		t.Fatalf("%d sockets, %d holding connections", len(l.eps), shards)
	}
}
