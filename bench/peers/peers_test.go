package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

func TestFrameRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	msgs := [][]byte{nil, []byte("a"), bytes.Repeat([]byte{7}, 70000)}
	for _, m := range msgs {
		buf.Write(appendFrame(nil, m))
	}
	for _, want := range msgs {
		got, err := readFrame(&buf)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(want))
		}
	}
	if _, err := readFrame(&buf); !errors.Is(err, io.EOF) {
		t.Errorf("read past the end: %v", err)
	}
	huge := appendFrame(nil, nil)
	huge[0] = 0xff
	if _, err := readFrame(bytes.NewReader(huge)); !errors.Is(err, errMessageTooLarge) {
		t.Errorf("oversized frame: %v", err)
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	h := header{series: series{lane: Critical, phase: 1}, conn: 513, seq: 1 << 30, sent: 12345 * time.Microsecond}
	b := make([]byte, headerSize)
	h.put(b)
	if got, ok := parseHeader(b); !ok || got != h {
		t.Errorf("parsed %+v, %v; want %+v", got, ok, h)
	}
	if _, ok := parseHeader(b[:headerSize-1]); ok {
		t.Error("short header accepted")
	}
	b[0] = byte(numLanes)
	if _, ok := parseHeader(b); ok {
		t.Error("unknown lane accepted")
	}
}

func TestPercentile(t *testing.T) {
	var s []time.Duration
	for i := 1; i <= 1000; i++ {
		s = append(s, time.Duration(i))
	}
	for q, want := range map[float64]time.Duration{0.5: 500, 0.99: 990, 0.999: 999, 1: 1000, 0: 1} {
		if got := percentile(s, q); got != want {
			t.Errorf("percentile(%v) = %v, want %v", q, got, want)
		}
	}
	if percentile(nil, 0.5) != 0 {
		t.Error("percentile of nothing is not 0")
	}
}

// TestPeersSmoke runs a short W1 and W2 for every peer over loopback and
// checks that every reliable message arrives; it measures nothing.
func TestPeersSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real transports for a few seconds")
	}
	ws := workloads()
	for name, p := range peers() {
		for _, wl := range []string{"W1", "W2"} {
			t.Run(name+"/"+wl, func(t *testing.T) {
				w := ws[wl]
				w.conns = 2
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				res, err := measure(ctx, p, w, Options{Keepalive: time.Second, MTU: 1200, Unreliable: w.unreliable}, 1, 300*time.Millisecond)
				if err != nil {
					t.Fatal(err)
				}
				s := res.Series[0]
				if s.Sent == 0 || s.Delivered == 0 || (!w.unreliable && s.Delivered != s.Sent) || res.WireBytes == 0 {
					t.Errorf("%+v", res)
				}
			})
		}
	}
}
