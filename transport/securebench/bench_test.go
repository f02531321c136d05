package securebench

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/secure"
)

func BenchmarkHandshakeLoopback(b *testing.B) {
	var total time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := Handshakes(b.Context(), 1, 0); err != nil {
			b.Fatal(err)
		}
		total += time.Since(t0)
	}
	b.ReportMetric(float64(b.N)/total.Seconds(), "listen+handshakes/s")
}

func BenchmarkHandshakesSequential(b *testing.B) {
	hps, err := Handshakes(b.Context(), b.N, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(hps, "handshakes/s")
}

func BenchmarkSeal1200(b *testing.B) {
	client, _, err := sessions()
	if err != nil {
		b.Fatal(err)
	}
	header := make([]byte, 24)
	payload := make([]byte, 1200-len(header)-secure.Overhead)
	buf := make([]byte, 0, 1200)
	b.SetBytes(1200)
	seq := uint32(0)
	for b.Loop() {
		seq++
		if _, err := client.Seal(buf, seq, header, payload); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen1200(b *testing.B) {
	client, server, err := sessions()
	if err != nil {
		b.Fatal(err)
	}
	header := make([]byte, 24)
	payload := make([]byte, 1200-len(header)-secure.Overhead)
	const n = 1 << 16
	wire := make([][]byte, n)
	for i := range wire {
		if wire[i], err = client.Seal(nil, uint32(i+1), header, payload); err != nil {
			b.Fatal(err)
		}
	}
	buf := make([]byte, 0, 1200)
	now := time.Now()
	b.SetBytes(1200)
	i := 0
	for b.Loop() {
		if i == n { // the replay window refuses a second pass: re-key
			b.StopTimer()
			if client, server, err = sessions(); err != nil {
				b.Fatal(err)
			}
			for j := range wire {
				wire[j], _ = client.Seal(wire[j][:0], uint32(j+1), header, payload)
			}
			i = 0
			b.StartTimer()
		}
		if _, err := server.Open(buf, uint32(i+1), header, wire[i], now); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkW1 runs W1 for 100 ms per iteration without and with Security
// and reports the process CPU per delivered message.
func BenchmarkW1(b *testing.B) {
	for _, tc := range []struct {
		name      string
		encrypted bool
	}{{"plaintext", false}, {"encrypted", true}} {
		b.Run(tc.name, func(b *testing.B) {
			r, err := W1(b.Context(), tc.encrypted, time.Duration(b.N)*100*time.Millisecond)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(r.CPUPerMsgUs*1000, "cpu-ns/msg")
			b.ReportMetric(0, "ns/op")
		})
	}
}
