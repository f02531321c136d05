package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"
)

// handed is a MessageHandler that keeps what it was handed.
type handed struct {
	mu      sync.Mutex
	got     []string
	late    int // messages handed after the end
	ends    int
	err     error
	calls   int // messages whose waker was returned
	wakes   int
	endedCh chan struct{}
}

func (r *handed) HandleMessage(_ *Conn, m Message) Waker {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ends > 0 {
		r.late++
	}
	r.got = append(r.got, string(m.Data))
	r.calls++
	return r
}

func (r *handed) HandleEnd(_ *Conn, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ends++; r.ends == 1 {
		r.err = err
		close(r.endedCh)
	}
}

func (r *handed) Wake() {
	r.mu.Lock()
	r.wakes++
	r.mu.Unlock()
}

// TestMessageHandler: a handler set on a server connection is handed the
// messages queued before it was set, then every later one, in order, each
// once; then the end, once, with the reason, and nothing after it. Its
// waker is woken at most once per message (once per read batch), and
// Receive reports only the end. Over real UDP (batched reads) and over a
// PacketConn read datagram by datagram.
func TestMessageHandler(t *testing.T) {
	for _, name := range []string{"udp", "datagram by datagram"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			client, server := udpPair(t)
			if name != "udp" {
				client, server = plainPacketConn{client}, plainPacketConn{server}
			}
			l, cc, sc := pair(t, ctx, client, server, Config{})
			defer l.Close()
			const before, n = 5, 300
			send := func(from, to int) {
				for i := from; i < to; i++ {
					for {
						err := cc.Send(ChannelActions, fmt.Appendf(nil, "msg %d", i))
						if !errors.Is(err, ErrBackpressure) {
							if err != nil {
								t.Fatal(err)
							}
							break
						}
						time.Sleep(time.Millisecond)
					}
				}
			}
			send(0, before)
			for queued(sc) < before {
				if ctx.Err() != nil {
					t.Fatal("the first messages never arrived")
				}
				time.Sleep(time.Millisecond)
			}
			r := &handed{endedCh: make(chan struct{})}
			sc.SetHandler(r)
			sc.SetHandler(&handed{}) // a connection takes one handler
			send(before, n)
			if err := cc.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-r.endedCh:
			case <-ctx.Done():
				t.Fatal("the end never reached the handler")
			}
			if _, err := sc.Receive(ctx); !errors.Is(err, ErrPeerClosed) {
				t.Fatalf("Receive after the end: %v, want ErrPeerClosed", err)
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			if len(r.got) != n {
				t.Fatalf("handed %d messages, want %d", len(r.got), n)
			}
			for i, g := range r.got {
				if want := fmt.Sprintf("msg %d", i); g != want {
					t.Fatalf("message %d is %q, want %q", i, g, want)
				}
			}
			if r.ends != 1 || r.late != 0 || !errors.Is(r.err, ErrPeerClosed) {
				t.Fatalf("ends %d, messages after the end %d, reason %v; want 1, 0, ErrPeerClosed", r.ends, r.late, r.err)
			}
			if r.wakes < 1 || r.wakes > r.calls {
				t.Fatalf("woken %d times for %d messages", r.wakes, r.calls)
			}
			t.Logf("%d messages, %d wakes", r.calls, r.wakes)
		})
	}
}

// TestMessageHandlerAfterTheEnd: a handler set on a connection that has
// ended gets what it received and the end at once.
func TestMessageHandlerAfterTheEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	client, server := udpPair(t)
	l, cc, sc := pair(t, ctx, client, server, Config{})
	defer l.Close()
	if err := cc.Send(ChannelActions, []byte("last words")); err != nil {
		t.Fatal(err)
	}
	cc.Close()
	for sc.State() != StateDisconnected {
		if ctx.Err() != nil {
			t.Fatal("the server connection never ended")
		}
		time.Sleep(time.Millisecond)
	}
	<-sc.done
	r := &handed{endedCh: make(chan struct{})}
	sc.SetHandler(r)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.got) != 1 || r.got[0] != "last words" || r.ends != 1 || !errors.Is(r.err, ErrPeerClosed) {
		t.Fatalf("got %q, %d ends (%v); want the last words and the end", r.got, r.ends, r.err)
	}
}

// queued is the number of messages c received and nobody read.
func queued(c *Conn) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess.inbox.len()
}

// udpPair returns two loopback UDP sockets, closed with the test.
func udpPair(t *testing.T) (net.PacketConn, net.PacketConn) {
	t.Helper()
	var pcs [2]net.PacketConn
	for i := range pcs {
		pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pc.Close() })
		pcs[i] = pc
	}
	return pcs[0], pcs[1]
}

// plainPacketConn hides a UDP socket's type: the endpoint reads and
// writes it datagram by datagram.
type plainPacketConn struct{ net.PacketConn }

// countWaker counts its wakes.
type countWaker struct{ n int }

func (w *countWaker) Wake() { w.n++ }

// TestReadBatchWakesEachWakerOnce: however many messages of a read batch
// woke a waker (a room's inbox, for all its seats), it is woken once, at
// the end of the batch, and not again by the next batch unless woken.
func TestReadBatchWakesEachWakerOnce(t *testing.T) {
	var rb readBatch
	a, b := &countWaker{}, &countWaker{}
	for range 10 {
		rb.wake(a)
		rb.wake(b)
	}
	rb.wake(a)
	if a.n != 0 || b.n != 0 {
		t.Fatal("woken before the end of the batch")
	}
	rb.answer()
	rb.wake(b)
	rb.answer()
	rb.answer()
	if a.n != 1 || b.n != 2 {
		t.Fatalf("wakes %d and %d, want 1 and 2", a.n, b.n)
	}
}
