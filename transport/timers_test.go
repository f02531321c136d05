package transport

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

// echoHandler echoes every message from the read goroutine and records
// each connection's end.
type echoHandler struct {
	mu     sync.Mutex
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

// TestTimersNeedNoGoroutinePerConnection: a UDP listener carries a
// hundred connections (clients: one Swarm socket, server: a
// MessageHandler) with the goroutines it had for none, as its
// connections' timers run on the endpoint's one timer goroutine; and
// those timers fire: every connection the clients abandon ends by the
// server's idle timeout, each end handed to the handler once.
func TestTimersNeedNoGoroutinePerConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cfg := Config{Channels: testLanes(), IdleTimeout: 300 * time.Millisecond, KeepAliveInterval: 100 * time.Millisecond}
	l, err := ListenUDP(ctx, "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	h := &echoHandler{}
	go func() { // one goroutine accepts every connection
		for {
			c, err := l.Accept(ctx)
			if err != nil {
				return
			}
			c.SetHandler(h)
		}
	}()
	s := swarmTo(t, l, cfg)
	before := runtime.NumGoroutine()
	const n = 100
	echoEach(t, ctx, s, n)
	if st := l.Stats(); st.Connections != n {
		t.Fatalf("server holds %d connections, want %d", st.Connections, n)
	}
	if grown := runtime.NumGoroutine() - before; grown > 5 {
		t.Errorf("%d connections grew the goroutines by %d", n, grown)
	}
	// The clients go silent: the server's timers end every connection.
	for l.Stats().Connections > 0 {
		if ctx.Err() != nil {
			t.Fatalf("%d connections outlived the idle timeout", l.Stats().Connections)
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.ends) != n || h.echoed != n {
		t.Fatalf("%d ends, %d echoes; want %d of each", len(h.ends), h.echoed, n)
	}
	for _, err := range h.ends {
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("a connection ended by %v, want ErrTimeout", err)
		}
	}
}
