package transport

import (
	"encoding/binary"
	"testing"
	"time"
)

// TestSequenceWrapAround starts datagram sequences just below 2^32 and
// channel sequences just below 2^16, so both wrap during a lossy transfer.
func TestSequenceWrapAround(t *testing.T) {
	const total = 3000
	n := newSimNet(t, 13, Config{}, Config{}, harsh, harsh)
	n.s[0].nextSeq, n.s[1].nextSeq = 0xFFFFFF80, 0xFFFFFFF0
	for _, ch := range []ChannelID{ChannelActions, ChannelEntities} {
		i := n.s[0].set.byID[ch]
		n.s[0].send[i].nextSeq = 65000
		n.s[1].recv[i].base = 65000
	}
	n.connect()
	var ordered []uint32
	unordered := map[uint32]int{}
	n.onMessage = func(side int, m Message) {
		v := binary.BigEndian.Uint32(m.Data)
		switch m.Channel {
		case ChannelActions:
			ordered = append(ordered, v)
		case ChannelEntities:
			unordered[v]++
		}
	}
	a := &sender{ch: ChannelActions, n: total, size: 30}
	b := &sender{ch: ChannelEntities, n: total, size: 30}
	n.runUntil(func() bool {
		// Trickle, so that many datagrams are sent.
		a.n, b.n = min(total, a.next+20), min(total, b.next+20)
		a.pump(t, n.s[0], n.now)
		b.pump(t, n.s[0], n.now)
		a.n, b.n = total, total
		return len(ordered) == total && len(unordered) == total
	}, 10*time.Minute)
	for i, v := range ordered {
		if v != uint32(i) {
			t.Fatalf("ordered message %d is %d", i, v)
		}
	}
	for v, c := range unordered {
		if c != 1 {
			t.Fatalf("unordered message %d delivered %d times", v, c)
		}
	}
	if s := n.s[0].nextSeq; s > 0x10000000 {
		t.Fatalf("datagram sequence %#x did not wrap", s)
	}
	if i := n.s[0].set.byID[ChannelActions]; n.s[1].recv[i].base > 10000 {
		t.Fatalf("channel sequence %d did not wrap", n.s[1].recv[i].base)
	}
}
