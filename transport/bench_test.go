package transport

import (
	"context"
	"errors"
	"testing"
	"time"
)

// fullDatagram returns a datagram of 64-byte reliable messages up to the MTU.
func fullDatagram() []byte {
	b := appendHeader(nil, header{flags: flagAck, connID: 1, seq: 2, ackLatest: 3, ackMask: 0xFFFF, delay: 9})
	payload := make([]byte, 64)
	for seq := uint16(0); len(b)+frameHeaderLen+len(payload) <= DefaultMTU; seq++ {
		b = appendFrame(b, &frame{channel: 2, flags: frameReliable | frameOrdered, seq: seq, payload: payload})
	}
	return b
}

func BenchmarkDatagramEncode(b *testing.B) {
	payload := make([]byte, 64)
	buf := make([]byte, 0, DefaultMTU)
	b.ReportAllocs()
	b.SetBytes(int64(len(fullDatagram())))
	for b.Loop() {
		buf = appendHeader(buf[:0], header{flags: flagAck, connID: 1, seq: 2, ackLatest: 3, ackMask: 0xFFFF})
		for seq := uint16(0); len(buf)+frameHeaderLen+len(payload) <= DefaultMTU; seq++ {
			f := frame{channel: 2, flags: frameReliable | frameOrdered, seq: seq, payload: payload}
			buf = appendFrame(buf, &f)
		}
	}
}

func BenchmarkDatagramDecode(b *testing.B) {
	d := fullDatagram()
	b.ReportAllocs()
	b.SetBytes(int64(len(d)))
	for b.Loop() {
		_, rest, err := parseHeader(d)
		for err == nil && len(rest) > 0 {
			_, rest, err = parseFrame(rest)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSessionMessage measures one 64-byte reliable-ordered message
// through two sessions (send, datagram, receive, acknowledgement) with no
// sockets: the protocol's CPU and allocation cost per message.
func BenchmarkSessionMessage(b *testing.B) {
	for _, batch := range []int{1, 16} {
		b.Run(map[int]string{1: "one-per-datagram", 16: "16-per-datagram"}[batch], func(b *testing.B) {
			n := newSimNet(b, 1, Config{}, Config{}, impair{}, impair{})
			n.connect()
			a, s := n.s[0], n.s[1]
			msg := make([]byte, 64)
			var buf []byte
			now := n.now
			exchange := func(from, to *Session) {
				for {
					var ok bool
					buf, ok = from.AppendDatagram(buf[:0], now)
					if !ok {
						return
					}
					to.HandleDatagram(buf, now)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := a.Send(ChannelActions, msg, now); err != nil {
					b.Fatal(err)
				}
				if i++; i%batch != 0 {
					continue
				}
				now = now.Add(time.Millisecond)
				exchange(a, s)
				for {
					if _, ok := s.Receive(); !ok {
						break
					}
				}
				now = now.Add(5 * time.Millisecond) // ack delay
				exchange(s, a)
			}
		})
	}
}

// BenchmarkConnMessage measures a 64-byte reliable-ordered message through
// the driver (goroutines, timers, in-memory sockets), send to receive.
func BenchmarkConnMessage(b *testing.B) {
	ctx := context.Background()
	c, s, err := Pipe(ctx, Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	defer c.Close()
	msg := make([]byte, 64)
	b.ReportAllocs()
	done := make(chan error, 1)
	go func() {
		for range b.N {
			if _, err := s.Receive(ctx); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range b.N {
		for {
			err := c.Send(ChannelActions, msg)
			if !errors.Is(err, ErrBackpressure) {
				if err != nil {
					b.Fatal(err)
				}
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
