package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/tickwire/tickwire/transport/transportbench"
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

// TestPeersSmoke runs a short W1 and W2 for every peer over loopback and
// checks that every reliable message arrives; it measures nothing.
func TestPeersSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real transports for a few seconds")
	}
	for name, p := range peers() {
		for _, wl := range []string{"W1", "W2"} {
			t.Run(name+"/"+wl, func(t *testing.T) {
				w, _ := transportbench.WorkloadByName(wl)
				w.Conns = 2
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				res, err := transportbench.Run(ctx, p, w, transportbench.RunConfig{Seed: 1, Duration: 300 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				s := res.Series[0]
				if s.Sent == 0 || s.Delivered == 0 || (!w.Unreliable && s.Delivered != s.Sent) || res.WireBytes == 0 {
					t.Errorf("%+v", res)
				}
			})
		}
	}
}
