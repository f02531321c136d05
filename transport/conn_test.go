package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/netsim"
)

// nobody is an address no endpoint listens on.
var nobody = net.UDPAddrFromAddrPort(netip.MustParseAddrPort("192.0.2.99:9"))

// pair connects a client and a server over pcs.
func pair(t *testing.T, ctx context.Context, client, server net.PacketConn, cfg Config) (*Listener, *Conn, *Conn) {
	t.Helper()
	l, err := Listen(ctx, server, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var sc *Conn
	var aerr error
	var wg sync.WaitGroup
	wg.Go(func() { sc, aerr = l.Accept(ctx) })
	cc, err := Dial(ctx, client, server.LocalAddr(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if aerr != nil {
		t.Fatal(aerr)
	}
	return l, cc, sc
}

func TestConnOverMemoryNetwork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		mn := netsim.NewMemNetwork()
		a, _ := mn.ListenPacket("")
		b, _ := mn.ListenPacket("")
		l, cc, sc := pair(t, ctx, a, b, Config{})
		defer l.Close()
		big := bytes.Repeat([]byte("0123456789"), 200_000) // 2 MB, compressed on the pool
		const n = 500
		go func() {
			for i := range n {
				for {
					err := cc.Send(ChannelActions, fmt.Appendf(nil, "msg %d", i))
					if !errors.Is(err, ErrBackpressure) {
						if err != nil {
							t.Error(err)
						}
						break
					}
					time.Sleep(time.Millisecond)
				}
			}
			if err := cc.Send(ChannelWorld, big); err != nil {
				t.Error(err)
			}
		}()
		next := 0
		for next < n+1 {
			m, err := sc.Receive(ctx)
			if err != nil {
				t.Fatal(err)
			}
			switch m.Channel {
			case ChannelActions:
				if want := fmt.Sprintf("msg %d", next); string(m.Data) != want {
					t.Fatalf("got %q, want %q", m.Data, want)
				}
				next++
			case ChannelWorld:
				if !bytes.Equal(m.Data, big) {
					t.Fatal("big message corrupted")
				}
				next++
			}
		}
		// Reply on the server side, then close gracefully from the client.
		if err := sc.Send(ChannelChat, []byte("pong")); err != nil {
			t.Fatal(err)
		}
		m, err := cc.Receive(ctx)
		if err != nil || string(m.Data) != "pong" {
			t.Fatalf("client got %q, %v", m.Data, err)
		}
		if err := cc.CloseWithReason("done"); err != nil {
			t.Fatal(err)
		}
		if _, err := sc.Receive(ctx); !errors.Is(err, ErrPeerClosed) {
			t.Fatalf("server Receive after peer close: %v", err)
		}
		st := sc.Stats()
		if st.PacketsReceived == 0 || st.Channels[1].MessagesReceived != n {
			t.Fatalf("stats %+v", st)
		}
	})
}

func TestDialTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mn := netsim.NewMemNetwork()
		a, _ := mn.ListenPacket("")
		_, err := Dial(t.Context(), a, nobody, Config{HandshakeTimeout: 2 * time.Second})
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestDialContextCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mn := netsim.NewMemNetwork()
		a, _ := mn.ListenPacket("")
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		defer cancel()
		if _, err := Dial(ctx, a, nobody, Config{}); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestListenerIgnoresGarbage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mn := netsim.NewMemNetwork()
		srv, _ := mn.ListenPacket("")
		l, err := Listen(t.Context(), srv, Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		x, _ := mn.ListenPacket("")
		// Valid headers without a hello create no connection.
		for i := range 100 {
			x.WriteTo(appendHeader(nil, header{connID: uint32(i), seq: 1}), srv.LocalAddr())
			x.WriteTo([]byte("garbage"), srv.LocalAddr())
		}
		synctest.Wait()
		if n := l.Stats().Connections; n != 0 {
			t.Fatalf("%d connections from garbage", n)
		}
	})
}

func TestUDPLoopback(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	l, err := ListenUDP(ctx, "127.0.0.1:0", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept(ctx)
		if err != nil {
			return
		}
		for {
			m, err := c.Receive(ctx)
			if err != nil {
				return
			}
			_ = c.Send(m.Channel, m.Data) // echo
		}
	}()
	c, err := DialUDP(ctx, l.Addr().String(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range 100 {
		msg := fmt.Appendf(nil, "ping %d", i)
		if err := c.Send(ChannelActions, msg); err != nil {
			t.Fatal(err)
		}
		m, err := c.Receive(ctx)
		if err != nil || !bytes.Equal(m.Data, msg) {
			t.Fatalf("echo %d: %q, %v", i, m.Data, err)
		}
	}
}

func TestPipe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, s, err := Pipe(t.Context(), Config{Channels: testLanes()})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Send(testLaneOrders, []byte("attack")); err != nil {
			t.Fatal(err)
		}
		m, err := s.Receive(t.Context())
		if err != nil || string(m.Data) != "attack" || m.Channel != testLaneOrders {
			t.Fatalf("got %v, %v", m, err)
		}
		c.Close()
		s.Close()
	})
}

// TestConnOverImpairedNetwork runs the driver through the netsim wrapper:
// latency, jitter, loss, duplication and reordering in both directions.
func TestConnOverImpairedNetwork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		mn := netsim.NewMemNetwork()
		link := netsim.Link{Latency: 25 * time.Millisecond, Jitter: 5 * time.Millisecond,
			Loss: 0.05, Duplicate: 0.01, Reorder: 0.02}
		a, _ := mn.ListenPacket("")
		b, _ := mn.ListenPacket("")
		ca := netsim.Wrap(a, netsim.Config{Seed: 1, Out: link})
		cb := netsim.Wrap(b, netsim.Config{Seed: 2, Out: link})
		l, cc, sc := pair(t, ctx, ca, cb, Config{})
		defer l.Close()
		const n = 2000
		go func() {
			for i := range n {
				for errors.Is(cc.Send(ChannelActions, fmt.Appendf(nil, "%d", i)), ErrBackpressure) {
					time.Sleep(5 * time.Millisecond)
				}
				if i%10 == 0 {
					time.Sleep(10 * time.Millisecond)
				}
			}
		}()
		for i := range n {
			m, err := sc.Receive(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if string(m.Data) != fmt.Sprint(i) {
				t.Fatalf("message %d is %q", i, m.Data)
			}
		}
		st := cc.Stats()
		if st.PacketsLost == 0 || st.RTT < 40*time.Millisecond || st.RTT > 70*time.Millisecond {
			t.Fatalf("stats: lost %d, rtt %v", st.PacketsLost, st.RTT)
		}
		cc.Close()
	})
}
