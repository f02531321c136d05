package transport

import (
	"testing"
	"time"
)

// TestAllocsPerRelayedDatagram counts the heap allocations of a relay's
// steady state through the sessions, the path every datagram of a server
// takes below its room: four players each send an order in a datagram,
// the server session of each parses it (acknowledgements included) and
// hands the order out, the server queues a tick frame for all four and
// assembles their datagrams, and the players take them in. Parsing,
// acknowledging, loss detection and datagram assembly allocate nothing
// per datagram; what allocates is each message's own copy: one for a
// message received (the application owns it) and one for a small message
// queued (its record and its payload together, kept until acknowledged),
// and the frame list of a datagram that leaves before an acknowledgement
// recycled an earlier one (the acknowledgement delay outlasts a tick:
// here one datagram in two). Per round: 8 messages queued (8), 8
// received (8) and 4 frame lists, for 8 datagrams through the server:
// 20, of which the server's side is 10. Not zero: the allocations per
// message are the remaining lever (pooled message records).
func TestAllocsPerRelayedDatagram(t *testing.T) {
	const players = 4
	cfg := Config{Channels: testLanes(), AckDelay: 50 * time.Millisecond}
	var nets [players]*simNet
	for i := range nets {
		nets[i] = newSimNet(t, uint64(i+1), cfg, cfg, impair{}, impair{})
		nets[i].connect()
	}
	now := nets[0].now
	for _, n := range nets[1:] {
		now = maxTime(now, n.now)
	}
	order, frame := make([]byte, 40), make([]byte, 100)
	var buf []byte
	datagrams := 0
	exchange := func(from, to *Session) {
		for {
			var ok bool
			if buf, ok = from.AppendDatagram(buf[:0], now); !ok {
				return
			}
			datagrams++
			to.HandleDatagram(buf, now)
		}
	}
	round := func() {
		now = now.Add(33 * time.Millisecond)
		for _, n := range nets {
			if err := n.s[0].Send(testLaneOrders, order, now); err != nil {
				t.Fatal(err)
			}
			n.s[0].Flush()
			exchange(n.s[0], n.s[1])
			for _, ok := n.s[1].Receive(); ok; _, ok = n.s[1].Receive() {
			}
		}
		for _, n := range nets {
			if err := n.s[1].Send(testLaneOrders, frame, now); err != nil {
				t.Fatal(err)
			}
			n.s[1].Flush()
			exchange(n.s[1], n.s[0])
			for _, ok := n.s[0].Receive(); ok; _, ok = n.s[0].Receive() {
			}
		}
		for _, n := range nets { // the timers: acknowledgement delays, keep-alives
			for _, s := range n.s {
				if d := s.Deadline(now); !d.IsZero() && !d.After(now) {
					s.HandleTimeout(now)
				}
			}
			exchange(n.s[0], n.s[1])
			exchange(n.s[1], n.s[0])
		}
	}
	for range 150 { // warm up: buffers and histories (a repair cache of 128 messages) reach their steady size
		round()
	}
	datagrams = 0
	const runs = 200
	allocs := testing.AllocsPerRun(runs, round)
	perDatagram := allocs / (float64(datagrams) / (runs + 1))
	t.Logf("%.1f allocations per round of %.1f datagrams: %.2f per datagram", allocs, float64(datagrams)/(runs+1), perDatagram)
	if want := 2*players + 2*players + players; allocs > float64(want) {
		t.Fatalf("%.1f allocations per round, want at most %d (one per message queued, one per message received, a frame list per two datagrams)", allocs, want)
	}
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
