package transport

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

var harsh = impair{delay: 25 * time.Millisecond, jitter: 10 * time.Millisecond, loss: 0.20, dup: 0.05, reorder: 0.10}

// sender feeds numbered messages into a session, retrying on backpressure.
type sender struct {
	ch   ChannelID
	next int
	n    int
	size int
}

func (p *sender) pump(t testing.TB, s *Session, now time.Time) {
	for p.next < p.n {
		msg := make([]byte, p.size)
		binary.BigEndian.PutUint32(msg, uint32(p.next))
		err := s.Send(p.ch, msg, now)
		if errors.Is(err, ErrBackpressure) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p.next++
	}
}

func TestReliableOrderedUnderLossReorderDuplication(t *testing.T) {
	const total = 10000
	n := newSimNet(t, 7, Config{}, Config{}, harsh, harsh)
	n.connect()
	var got []uint32
	n.onMessage = func(side int, m Message) {
		if side == 1 && m.Channel == ChannelActions {
			got = append(got, binary.BigEndian.Uint32(m.Data))
		}
	}
	p := &sender{ch: ChannelActions, n: total, size: 40}
	n.runUntil(func() bool {
		p.pump(t, n.s[0], n.now)
		return len(got) == total
	}, 5*time.Minute)
	for i, v := range got {
		if v != uint32(i) {
			t.Fatalf("message %d is %d: not exactly once in order", i, v)
		}
	}
	st := n.s[0].Stats()
	t.Logf("%d messages in %v virtual, %d datagrams, %d lost, loss %.1f%%, rtt %v",
		total, n.now.Sub(simEpoch), st.PacketsSent, st.PacketsLost, st.LossPercent, st.RTT)
	if st.PacketsLost == 0 || n.s[1].Stats().Duplicates == 0 {
		t.Fatal("the network did not impair anything")
	}
}

func TestReliableUnorderedExactlyOnce(t *testing.T) {
	const total = 5000
	n := newSimNet(t, 8, Config{}, Config{}, harsh, harsh)
	n.connect()
	seen := make(map[uint32]int)
	outOfOrder := false
	last := -1
	n.onMessage = func(side int, m Message) {
		if side == 1 && m.Channel == ChannelEntities {
			v := binary.BigEndian.Uint32(m.Data)
			seen[v]++
			if int(v) < last {
				outOfOrder = true
			}
			last = int(v)
		}
	}
	p := &sender{ch: ChannelEntities, n: total, size: 20}
	n.runUntil(func() bool {
		p.pump(t, n.s[0], n.now)
		return len(seen) == total && n.s[0].Stats().PendingReliable == 0
	}, 5*time.Minute)
	for v, c := range seen {
		if c != 1 || v >= total {
			t.Fatalf("message %d delivered %d times", v, c)
		}
	}
	if !outOfOrder {
		t.Error("expected some out-of-order delivery on an unordered channel under reordering and loss")
	}
}

func TestUnreliableSequencedNeverGoesBack(t *testing.T) {
	cfg := Config{Channels: testLanes()}
	link := impair{delay: 20 * time.Millisecond, jitter: 30 * time.Millisecond, loss: 0.1, dup: 0.1, reorder: 0.3}
	n := newSimNet(t, 9, cfg, cfg, link, link)
	n.connect()
	last, count := -1, 0
	n.onMessage = func(side int, m Message) {
		if m.Channel != testLaneControl {
			return
		}
		v := int(binary.BigEndian.Uint32(m.Data))
		if v <= last {
			t.Fatalf("delivered %d after %d", v, last)
		}
		last = v
		count++
	}
	sent := 0
	for range 2000 {
		msg := binary.BigEndian.AppendUint32(nil, uint32(sent))
		if err := n.s[0].Send(testLaneControl, msg, n.now); err != nil {
			t.Fatal(err)
		}
		sent++
		n.runFor(5 * time.Millisecond)
	}
	n.runFor(time.Second)
	if count < sent/4 || count == sent {
		t.Fatalf("delivered %d of %d: want many but not all", count, sent)
	}
}

func TestLargeMessageUnderLoss(t *testing.T) {
	msg := make([]byte, 16<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range msg {
		msg[i] = byte(rng.UintN(256))
	}
	link := impair{delay: 20 * time.Millisecond, loss: 0.05}
	n := newSimNet(t, 10, Config{}, Config{}, link, link)
	n.connect()
	var got []byte
	n.onMessage = func(side int, m Message) {
		if m.Channel == ChannelAssets {
			got = m.Data
		}
	}
	if err := n.s[0].Send(ChannelAssets, msg, n.now); err != nil {
		t.Fatal(err)
	}
	n.runUntil(func() bool { return got != nil }, 5*time.Minute)
	if !bytes.Equal(got, msg) {
		t.Fatal("16 MiB message corrupted")
	}
	st := n.s[0].Stats()
	t.Logf("16 MiB in %v virtual, %d datagrams, %d lost", n.now.Sub(simEpoch), st.PacketsSent, st.PacketsLost)
	if st.PacketsLost == 0 {
		t.Fatal("no loss happened")
	}
}
