package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"
)

// TestSwarm: fifty client sessions over one socket, driven by the test's
// goroutine alone, connect to a real listener; each sends a message the
// server echoes, and each gets its own echo back, over loopback UDP.
func TestSwarm(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cfg := Config{Channels: testLanes()}
	l, err := ListenUDP(ctx, "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go serveEcho(ctx, l)
	const n = 50
	echoEach(t, ctx, swarmTo(t, l, cfg), n)
	if st := l.Stats(); st.Connections != n {
		t.Fatalf("server holds %d connections, want %d", st.Connections, n)
	}
}

// TestSwarmRefusesSecurity: a swarm's sessions are plaintext.
func TestSwarmRefusesSecurity(t *testing.T) {
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	_, err = NewSwarm(pc, pc.LocalAddr().(*net.UDPAddr), Config{Security: &SecurityConfig{}})
	if !errors.Is(err, ErrSwarmSecure) {
		t.Fatalf("err %v, want ErrSwarmSecure", err)
	}
}

// swarmTo returns a swarm on a fresh loopback socket talking to l,
// closed with the test.
func swarmTo(t *testing.T, l *Listener, cfg Config) *Swarm {
	t.Helper()
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSwarm(pc, l.Addr().(*net.UDPAddr), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// echoEach opens n sessions on s; each sends one message once connected
// and must get it back, its own and once, from a server that echoes.
func echoEach(t *testing.T, ctx context.Context, s *Swarm, n int) {
	t.Helper()
	sessions := make([]*Session, n)
	index := map[*Session]int{}
	for i := range sessions {
		sessions[i] = s.Open(time.Now())
		index[sessions[i]] = i
	}
	sent, got := make([]bool, n), make([]bool, n)
	echoed := 0
	var touched []*Session
	var err error
	if err := s.Write(sessions, time.Now()); err != nil {
		t.Fatal(err)
	}
	for echoed < n {
		if ctx.Err() != nil {
			t.Fatalf("%d of %d echoes", echoed, n)
		}
		touched, err = s.Read(touched[:0], time.Now().Add(5*time.Millisecond), time.Now)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		for _, sess := range touched {
			i := index[sess]
			if !sent[i] && sess.State() == StateConnected {
				sent[i] = true
				if err := sess.Send(testLaneOrders, fmt.Appendf(nil, "client %d", i), now); err != nil {
					t.Fatal(err)
				}
			}
			for m, ok := sess.Receive(); ok; m, ok = sess.Receive() {
				if want := fmt.Appendf(nil, "client %d", i); !bytes.Equal(m.Data, want) || got[i] {
					t.Fatalf("session %d got %q", i, m.Data)
				}
				got[i] = true
				echoed++
			}
		}
		if err := s.Write(touched, now); err != nil {
			t.Fatal(err)
		}
		if err := s.Sweep(now); err != nil {
			t.Fatal(err)
		}
	}
}

// serveEcho accepts l's connections until ctx ends and echoes every
// message each receives, on its channel.
func serveEcho(ctx context.Context, l *Listener) {
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
}
