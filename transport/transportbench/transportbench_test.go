package transportbench

import (
	"context"
	"testing"
	"time"
)

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
	b[0] = byte(NumLanes)
	if _, ok := parseHeader(b); ok {
		t.Error("unknown lane accepted")
	}
}

func TestWorkloads(t *testing.T) {
	for i, w := range Workloads() {
		if want := "W" + string(rune('1'+i)); w.Name != want || w.drive == nil || w.Conns == 0 {
			t.Errorf("workload %d: %+v", i, w)
		}
		if got, ok := WorkloadByName(w.Name); !ok || got.Name != w.Name {
			t.Errorf("WorkloadByName(%q) = %v, %v", w.Name, got.Name, ok)
		}
	}
	if _, ok := WorkloadByName("W9"); ok {
		t.Error("W9 found")
	}
}

// TestTickwireSmoke runs a short W1 and W2 for tickwire over loopback and
// checks that every reliable message arrives exactly once and that the
// figures are filled in; it asserts no timing.
func TestTickwireSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real sockets for about a second")
	}
	for _, name := range []string{"W1", "W2"} {
		t.Run(name, func(t *testing.T) {
			w, _ := WorkloadByName(name)
			w.Conns = 2
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := Run(ctx, Tickwire{}, w, RunConfig{Seed: 1, Duration: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Series) != 1 {
				t.Fatalf("series %+v", res.Series)
			}
			s := res.Series[0]
			if s.Sent == 0 || s.Delivered == 0 || (!w.Unreliable && s.Delivered != s.Sent) || res.WireBytes == 0 || res.WireBytesPerMsg == 0 {
				t.Errorf("%+v", res)
			}
		})
	}
}
