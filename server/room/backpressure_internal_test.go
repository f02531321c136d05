package room

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/transport"
)

// TestSendCauseString: every cause has its metric label, and a value
// past the table names itself as unknown instead of indexing out of it.
func TestSendCauseString(t *testing.T) {
	want := []string{"backpressure", "too_large", "closed", "encode", "other"}
	for c := range NumSendCauses {
		if got := c.String(); got != want[c] {
			t.Errorf("cause %d = %q, want %q", c, got, want[c])
		}
	}
	for _, c := range []SendCause{NumSendCauses, NumSendCauses + 1, 255} {
		if got := c.String(); got != "cause?" {
			t.Errorf("cause %d = %q, want cause?", c, got)
		}
	}
}

// TestLogSlowOncePerInterval: the first dropped seat is logged, the next
// ones within slowLogInterval are counted and reported with the next line,
// which may come exactly slowLogInterval after the previous one and not a
// nanosecond earlier. A first drop at server time 0 counts as a line.
func TestLogSlowOncePerInterval(t *testing.T) {
	var c Counters
	type call struct {
		now      time.Duration
		ok       bool
		unlogged uint64
	}
	for i, s := range []call{
		{0, true, 0},
		{0, false, 0},
		{slowLogInterval / 2, false, 0},
		{slowLogInterval - 1, false, 0},
		{slowLogInterval, true, 3},
		{slowLogInterval + 1, false, 0},
		{3 * slowLogInterval, true, 1},
		{3 * slowLogInterval, false, 0},
	} {
		ok, unlogged := c.logSlow(s.now)
		if ok != s.ok || unlogged != s.unlogged {
			t.Errorf("call %d at %v: (%v, %d), want (%v, %d)", i, s.now, ok, unlogged, s.ok, s.unlogged)
		}
	}
}

// TestBacklogDrainReleasesLane: once a lane's waiting messages are all
// sent, the lane no longer holds new messages behind an empty backlog,
// and the backlog counts no bytes.
func TestBacklogDrainReleasesLane(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := transport.Config{Channels: []transport.ChannelConfig{{ID: 1, Name: "orders",
			Reliability: transport.ReliableOrdered, Priority: transport.Critical}}}
		conn, peer, err := transport.Pipe(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer peer.Close()
		defer conn.Close()
		var b backlog
		b.push(time.Millisecond, 1, []byte("first"))
		b.push(2*time.Millisecond, 1, []byte("second"))
		if !b.holds(1) || b.holds(2) || b.since != time.Millisecond || b.bytes != 11 {
			t.Fatalf("after two pushes: holds(1) %v holds(2) %v since %v bytes %d", b.holds(1), b.holds(2), b.since, b.bytes)
		}
		sent, err := b.drain(5*time.Millisecond, conn)
		if sent != 2 || err != nil {
			t.Fatalf("drain sent %d, %v; want 2, nil", sent, err)
		}
		if b.holds(1) || b.bytes != 0 || len(b.queue) != 0 || b.since != 5*time.Millisecond {
			t.Errorf("after drain: holds(1) %v bytes %d queued %d since %v", b.holds(1), b.bytes, len(b.queue), b.since)
		}
	})
}

// TestPressureOverdue: a seat breaks the policy exactly when its backlog
// has waited SendGrace or holds more than MaxBacklog bytes, or when its
// peer has acknowledged nothing for SendGrace; a nanosecond or a byte
// less is within it. The reason its peer reads names which.
func TestPressureOverdue(t *testing.T) {
	const start = 3 * time.Second
	waiting := func(bytes int) *pressure {
		p := &pressure{}
		p.backlog.push(start, 1, make([]byte, bytes))
		return p
	}
	stalled := &pressure{stalled: true, since: start}
	for _, tc := range []struct {
		name string
		p    *pressure
		now  time.Duration
		want bool
	}{
		{"nothing waiting, nothing asked", &pressure{}, start + time.Hour, false},
		{"backlog just under the grace", waiting(10), start + SendGrace - 1, false},
		{"backlog at the grace", waiting(10), start + SendGrace, true},
		{"backlog of MaxBacklog bytes", waiting(MaxBacklog), start, false},
		{"backlog one byte over", waiting(MaxBacklog + 1), start, true},
		{"stall just under the grace", stalled, start + SendGrace - 1, false},
		{"stall at the grace", stalled, start + SendGrace, true},
	} {
		if got := tc.p.overdue(tc.now); got != tc.want {
			t.Errorf("%s: overdue %v, want %v", tc.name, got, tc.want)
		}
	}
	if got, want := waiting(10).reason(start+2*time.Second), ErrTooSlow.Error()+" (10 bytes waiting for 2s)"; got != want {
		t.Errorf("backlog reason %q, want %q", got, want)
	}
	if got, want := stalled.reason(start+5*time.Second), ErrTooSlow.Error()+" (nothing acknowledged for 5s)"; got != want {
		t.Errorf("stall reason %q, want %q", got, want)
	}
}
