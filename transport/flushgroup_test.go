package transport

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"
)

// TestFlushGroup flushes server connections over UDP (batched together)
// and one over the in-memory pipe (flushed as by Conn.Flush) with a flush
// interval too long to matter: every message arrives, in order, only
// because of the group's flushes.
func TestFlushGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cfg := Config{Channels: testLanes(), FlushInterval: time.Hour}
	l, err := ListenUDP(ctx, "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var clients, servers []*Conn
	for range 3 {
		c, err := DialUDP(ctx, l.Addr().String(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := l.Accept(ctx)
		if err != nil {
			t.Fatal(err)
		}
		clients, servers = append(clients, c), append(servers, s)
	}
	pc, ps, err := Pipe(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	clients, servers = append(clients, pc), append(servers, ps)

	var g FlushGroup
	const rounds, perRound = 3, 40
	for round := range rounds {
		for i, s := range servers {
			for k := range perRound {
				if err := s.Send(testLaneOrders, payload(i, round*perRound+k)); err != nil {
					t.Fatal(err)
				}
			}
		}
		g.Flush(servers...)
		for i, c := range clients {
			for k := range perRound {
				m, err := c.Receive(ctx)
				if want := payload(i, round*perRound+k); err != nil || !bytes.Equal(m.Data, want) {
					t.Fatalf("round %d, client %d: got %q, %v; want %q", round, i, m.Data, err, want)
				}
			}
		}
	}
}

// payload is message k to connection i, 100 bytes.
func payload(i, k int) []byte {
	return fmt.Appendf(bytes.Repeat([]byte{'.'}, 80), "conn %d msg %d", i, k)
}
