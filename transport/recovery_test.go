package transport

import (
	"encoding/binary"
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/metrics"
)

// sendStream sends size-byte messages on ch from the client every interval for
// count messages, then drains; it returns the sorted delivery latencies
// and the bytes each side put on the wire meanwhile.
func sendStream(t *testing.T, n *simNet, ch ChannelID, size, count int, interval time.Duration) ([]time.Duration, [2]int) {
	t.Helper()
	var lat []time.Duration
	n.onMessage = func(side int, m Message) {
		sent := time.Unix(0, int64(binary.BigEndian.Uint64(m.Data)))
		lat = append(lat, n.now.Sub(sent))
	}
	w0 := n.wire
	msg := make([]byte, size)
	for range count {
		binary.BigEndian.PutUint64(msg, uint64(n.now.UnixNano()))
		if err := n.s[0].Send(ch, msg, n.now); err != nil {
			t.Fatal(err)
		}
		n.runFor(interval)
	}
	n.runFor(time.Second)
	slices.Sort(lat)
	return lat, [2]int{n.wire[0] - w0[0], n.wire[1] - w0[1]}
}

// TestLossRecoveryLatency runs the peer benchmark's W1 in virtual time: 64-byte
// reliable-ordered messages at 1,000/s over 50 ms RTT with 5% loss each
// way. A lost message must cost about one and a half round trips (the
// gap is acknowledged at once, the retransmission goes in the next
// datagram and is repeated in the two after it), not more, for 99% of the
// messages, and the wire cost stays under 98 bytes a message.
func TestLossRecoveryLatency(t *testing.T) {
	link := impair{delay: 25 * time.Millisecond, loss: 0.05}
	n := newSimNet(t, 7, Config{}, Config{}, link, link)
	n.connect()
	const count = 10_000
	lat, wire := sendStream(t, n, ChannelActions, 64, count, time.Millisecond)
	if len(lat) != count {
		t.Fatalf("delivered %d of %d", len(lat), count)
	}
	p99 := metrics.Quantile(lat, 0.99)
	perMsg := float64(wire[0]+wire[1]) / count
	t.Logf("p50 %v p99 %v p999 %v max %v; %.1f wire bytes a message (client %d, server %d)", metrics.Quantile(lat, 0.5), p99, metrics.Quantile(lat, 0.999), lat[len(lat)-1], perMsg, wire[0], wire[1])
	if p99 > 85*time.Millisecond {
		t.Errorf("p99 %v, want at most 1.5 RTT + 10 ms", p99)
	}
	if perMsg > 98 {
		t.Errorf("%.1f wire bytes a message, want at most 98", perMsg)
	}
}

// TestCriticalResilience sends 60 Hz inputs on the Critical input channel
// over 50 ms RTT with 5% loss: each rides again in the next two datagrams,
// so a lost datagram delays its input by a frame interval instead of a
// round trip and a half, and 99% arrive within the one-way delay plus a
// frame.
func TestCriticalResilience(t *testing.T) {
	link := impair{delay: 25 * time.Millisecond, loss: 0.05}
	n := newSimNet(t, 12, Config{}, Config{}, link, link)
	n.connect()
	const count = 3000
	lat, wire := sendStream(t, n, ChannelInput, 32, count, time.Second/60)
	if len(lat) != count {
		t.Fatalf("delivered %d of %d", len(lat), count)
	}
	p99 := metrics.Quantile(lat, 0.99)
	t.Logf("p50 %v p99 %v max %v; client %.1f bytes an input", metrics.Quantile(lat, 0.5), p99, lat[len(lat)-1], float64(wire[0])/count)
	if limit := 25*time.Millisecond + time.Second/60 + time.Millisecond; p99 > limit {
		t.Errorf("p99 %v, want at most %v", p99, limit)
	}
}

// TestUnreliableNotAcknowledged checks that a one-way unreliable stream
// costs the receiver almost nothing: datagrams with only unreliable frames
// elicit no acknowledgement, except the one pinged per keepalive interval.
func TestUnreliableNotAcknowledged(t *testing.T) {
	link := impair{delay: 25 * time.Millisecond, loss: 0.05}
	n := newSimNet(t, 8, Config{}, Config{}, link, link)
	n.connect()
	before := n.s[1].stats.packetsSent
	lat, wire := sendStream(t, n, ChannelEffects, 600, 600, time.Second/60) // 10 s at 60 Hz
	sent := n.s[1].stats.packetsSent - before
	t.Logf("delivered %d of 600; server sent %d datagrams, %d bytes; client %d bytes", len(lat), sent, wire[1], wire[0])
	if len(lat) < 500 {
		t.Fatalf("delivered %d of 600", len(lat))
	}
	// Two pinged datagrams a second (half the default keepalive interval),
	// each answered, and no keepalives of the server's own.
	if limit := uint64(2*11 + 2); sent > limit {
		t.Errorf("server sent %d datagrams in 11 s, want at most %d", sent, limit)
	}
	if per := float64(wire[0]) / 600; per > 10+2+600+2 {
		t.Errorf("client sent %.1f bytes a message", per)
	}
}

// TestIdleKeepaliveCost checks that an idle connection costs one ping from
// the client and one acknowledgement from the server per keepalive
// interval: the server does not ping as well.
func TestIdleKeepaliveCost(t *testing.T) {
	link := impair{delay: 25 * time.Millisecond}
	n := newSimNet(t, 9, Config{}, Config{}, link, link)
	n.connect()
	n.runFor(2 * time.Second)
	c0, s0 := n.s[0].stats.packetsSent, n.s[1].stats.packetsSent
	n.runFor(20 * time.Second)
	c, s := n.s[0].stats.packetsSent-c0, n.s[1].stats.packetsSent-s0
	t.Logf("20 s idle: client sent %d datagrams (%d bytes), server %d", c, n.wire[0], s)
	if c > 21 || s > 21 || n.s[0].State() != StateConnected || n.s[1].State() != StateConnected {
		t.Errorf("client sent %d, server %d datagrams in 20 s; want about 20 each", c, s)
	}
}

// TestTimeoutKeepsReorderThresholds stalls the acknowledgements for longer
// than the retransmission timeout: the datagrams the timeout gave up on
// are acknowledged later after all, which must not raise the reordering
// thresholds (that would slow every later loss detection).
func TestTimeoutKeepsReorderThresholds(t *testing.T) {
	link := impair{delay: 25 * time.Millisecond}
	n := newSimNet(t, 10, Config{}, Config{}, link, link)
	n.connect()
	for range 20 {
		n.s[0].Send(ChannelInput, []byte("steady"), n.now)
		n.runFor(10 * time.Millisecond)
	}
	n.link[1].delay = 400 * time.Millisecond // acknowledgements stall
	for range 5 {
		n.s[0].Send(ChannelInput, []byte("stalled"), n.now)
		n.runFor(10 * time.Millisecond)
	}
	n.runFor(200 * time.Millisecond)
	n.link[1].delay = 25 * time.Millisecond
	n.runFor(2 * time.Second)
	sh := &n.s[0].sent
	if n.s[0].stats.rtos == 0 || sh.spurious == 0 {
		t.Fatalf("no timeout or no late acknowledgement: rtos %d, spurious %d", n.s[0].stats.rtos, sh.spurious)
	}
	if sh.reorderPackets != packetThreshold || sh.reorderEighths != 1 {
		t.Errorf("thresholds raised to %d packets, %d/8 RTT", sh.reorderPackets, 8+sh.reorderEighths)
	}
}
