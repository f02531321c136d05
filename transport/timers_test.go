package transport

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// echoHandler echoes every message from the read goroutine and records
// the connections it was set on and their ends.
type echoHandler struct {
	mu     sync.Mutex
	conns  []*Conn
	echoed int
	ends   []error
}

func (h *echoHandler) HandleMessage(c *Conn, m Message) Waker {
	if c.Send(m.Channel, m.Data) == nil {
		c.Flush()
	}
	h.mu.Lock()
	h.echoed++
	h.mu.Unlock()
	return nil
}

func (h *echoHandler) HandleEnd(_ *Conn, err error) {
	h.mu.Lock()
	h.ends = append(h.ends, err)
	h.mu.Unlock()
}

// echoServer listens on loopback UDP and sets an echoHandler on every
// connection it accepts, from one goroutine; n swarm clients then each
// get an echo.
func echoServer(t *testing.T, ctx context.Context, cfg Config, n int) (*Listener, *echoHandler, int) {
	t.Helper()
	l, err := ListenUDP(ctx, "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	h := &echoHandler{}
	go func() {
		for {
			c, err := l.Accept(ctx)
			if err != nil {
				return
			}
			c.SetHandler(h)
			h.mu.Lock()
			h.conns = append(h.conns, c)
			h.mu.Unlock()
		}
	}()
	s := swarmTo(t, l, cfg)
	before := runtime.NumGoroutine()
	echoEach(t, ctx, s, n)
	if st := l.Stats(); st.Connections != n {
		t.Fatalf("server holds %d connections, want %d", st.Connections, n)
	}
	return l, h, runtime.NumGoroutine() - before
}

// waitEnds waits until every connection of l ended and h has n ends.
func waitEnds(t *testing.T, ctx context.Context, l *Listener, h *echoHandler, n int) {
	t.Helper()
	for l.Stats().Connections > 0 {
		if ctx.Err() != nil {
			t.Fatalf("%d connections never ended", l.Stats().Connections)
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.ends) != n || h.echoed != n {
		t.Fatalf("%d ends, %d echoes; want %d of each", len(h.ends), h.echoed, n)
	}
}

// TestTimersNeedNoGoroutinePerConnection: a UDP listener carries a
// hundred connections (clients: one Swarm socket, server: a
// MessageHandler) with the goroutines it had for none, as its
// connections' timers run on the endpoint's one timer goroutine; and
// those timers fire: every connection the clients abandon ends by the
// server's idle timeout, each end handed to the handler once.
func TestTimersNeedNoGoroutinePerConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	const n = 100
	cfg := Config{Channels: testLanes(), IdleTimeout: 300 * time.Millisecond, KeepAliveInterval: 100 * time.Millisecond}
	l, h, grown := echoServer(t, ctx, cfg, n)
	if grown > 5 {
		t.Errorf("%d connections grew the goroutines by %d", n, grown)
	}
	waitEnds(t, ctx, l, h, n) // the clients went silent
	for _, err := range h.ends {
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("a connection ended by %v, want ErrTimeout", err)
		}
	}
}

// TestTimersFinishOnceWhenWokenWhileEnding: connections woken over and
// over while they end (two goroutines closing all of them in a loop, as a
// server closes a room's seats when their ends come in) are each finished
// once: one end handed over, no second close of what the first closed.
func TestTimersFinishOnceWhenWokenWhileEnding(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	const n = 50
	cfg := Config{Channels: testLanes(), CloseTimeout: 50 * time.Millisecond}
	l, h, _ := echoServer(t, ctx, cfg, n)
	h.mu.Lock()
	conns := slices.Clone(h.conns)
	h.mu.Unlock()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for l.Stats().Connections > 0 && ctx.Err() == nil {
				for _, c := range conns {
					c.startClose("")
				}
			}
		})
	}
	waitEnds(t, ctx, l, h, n)
	wg.Wait()
}
