package transport

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/tickwire/tickwire/metrics"
)

// schedChannels is a channel set for scheduling tests: no compression, so
// wire bytes follow message bytes.
func schedChannels() []ChannelConfig {
	return []ChannelConfig{
		{ID: 1, Name: "critical", Reliability: ReliableOrdered, Priority: Critical},
		{ID: 2, Name: "low", Reliability: Reliable, Priority: Low},
		{ID: 3, Name: "bulk", Reliability: Reliable, Priority: Bulk, AllowFragmentation: true},
		{ID: 4, Name: "heavy", Reliability: Reliable, Priority: Normal, Weight: 2},
		{ID: 5, Name: "light", Reliability: Reliable, Priority: Normal, Weight: 1},
	}
}

// saturate keeps the given channels full.
func saturate(t testing.TB, s *Session, now time.Time, size int, chans ...ChannelID) {
	msg := make([]byte, size)
	for _, ch := range chans {
		for {
			err := s.Send(ch, msg, now)
			if errors.Is(err, ErrBackpressure) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestBandwidthCap(t *testing.T) {
	const rate = 200_000
	cases := []struct {
		name  string
		chans []ChannelID
		want  float64 // fraction of the budget
	}{
		{"critical and low", []ChannelID{1, 2}, 1},
		{"low and bulk", []ChannelID{2, 3}, 0.8},   // 1 - CriticalReserve
		{"bulk only", []ChannelID{3}, 0.5},         // BulkMaxFraction
		{"normal weights", []ChannelID{4, 5}, 0.8}, // shared 2:1 below
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Channels: schedChannels(), Bandwidth: BandwidthBudget{MaxBytesPerSecond: rate}}
			cfg.Channels[0].MaxUnackedBytes = 64 << 10
			for i := 1; i < len(cfg.Channels); i++ {
				cfg.Channels[i].MaxUnackedBytes = 256 << 10
			}
			link := impair{delay: 20 * time.Millisecond}
			n := newSimNet(t, 11, cfg, cfg, link, link)
			n.connect()
			pump := func() bool { saturate(t, n.s[0], n.now, 500, c.chans...); return false }
			n.runUntil(func() bool { pump(); return n.now.Sub(simEpoch) > 2*time.Second }, time.Minute)
			w0, r0 := n.wire[0], n.s[1].Stats()
			const window = 10 * time.Second
			end := n.now.Add(window)
			n.runUntil(func() bool { pump(); return !n.now.Before(end) }, time.Minute)
			got := float64(n.wire[0]-w0) / window.Seconds()
			want := c.want * rate
			t.Logf("%.0f B/s on the wire, want %.0f", got, want)
			if got > want*1.05 || got < want*0.95 {
				t.Fatalf("sent %.0f B/s, want %.0f within 5%%", got, want)
			}
			if got > rate*1.05 {
				t.Fatalf("budget exceeded")
			}
			if c.chans[0] == 4 {
				r1 := n.s[1].Stats()
				heavy := r1.Channels[3].BytesReceived - r0.Channels[3].BytesReceived
				light := r1.Channels[4].BytesReceived - r0.Channels[4].BytesReceived
				ratio := float64(heavy) / float64(light)
				t.Logf("weight 2:1 channels got %d:%d bytes (%.3f)", heavy, light, ratio)
				if ratio < 1.9 || ratio > 2.1 {
					t.Fatalf("weighted share %.3f, want 2 within 5%%", ratio)
				}
			}
		})
	}
}

// TestCriticalLatencyUnderBulkLoad checks that a 60 Hz critical stream keeps
// its latency while a bulk transfer fills the budget of a rate-limited link.
func TestCriticalLatencyUnderBulkLoad(t *testing.T) {
	measure := func(bulk bool) []time.Duration {
		cfg := Config{Channels: schedChannels(), Bandwidth: BandwidthBudget{
			MaxBytesPerSecond: 950_000, CriticalReserve: 0.1, BulkMaxFraction: -1}}
		link := impair{delay: 20 * time.Millisecond, rate: 1_000_000}
		n := newSimNet(t, 12, cfg, cfg, link, link)
		n.connect()
		var lat []time.Duration
		bulkBytes := 0
		n.onMessage = func(side int, m Message) {
			switch m.Channel {
			case 1:
				sent := time.Duration(binary.BigEndian.Uint64(m.Data))
				lat = append(lat, n.now.Sub(simEpoch)-sent)
			case 3:
				bulkBytes += len(m.Data)
			}
		}
		start := n.now
		next := n.now
		n.runUntil(func() bool {
			if bulk {
				saturate(t, n.s[0], n.now, 60_000, 3)
			}
			if !n.now.Before(next) {
				msg := binary.BigEndian.AppendUint64(make([]byte, 0, 64), uint64(n.now.Sub(simEpoch)))
				if err := n.s[0].Send(1, msg[:cap(msg)], n.now); err != nil {
					t.Fatal(err)
				}
				next = next.Add(time.Second / 60)
			}
			return n.now.Sub(start) > 10*time.Second
		}, time.Minute)
		if bulk {
			goodput := float64(bulkBytes) / n.now.Sub(start).Seconds()
			t.Logf("bulk goodput %.0f B/s", goodput)
			if goodput < 700_000 {
				t.Fatalf("bulk goodput %.0f B/s: the link is not saturated", goodput)
			}
		}
		return lat
	}
	p99 := func(d []time.Duration) time.Duration { return metrics.QuantileOf(d, 0.99) }
	idle, loaded := measure(false), measure(true)
	t.Logf("critical p99: %v idle, %v under bulk load", p99(idle), p99(loaded))
	if p99(loaded) > p99(idle)+5*time.Millisecond {
		t.Fatalf("critical p99 grew from %v to %v under bulk load", p99(idle), p99(loaded))
	}
}
