package transport

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"
)

func TestSendErrors(t *testing.T) {
	n := newSimNet(t, 14, Config{}, Config{}, clean, clean)
	if err := n.s[0].Send(ChannelChat, nil, n.now); !errors.Is(err, ErrNotConnected) {
		t.Errorf("before handshake: %v", err)
	}
	n.connect()
	s := n.s[0]
	for _, c := range []struct {
		ch   ChannelID
		size int
		want error
	}{
		{ChannelControl, 1, ErrUnknownChannel},
		{99, 1, ErrUnknownChannel},
		{ChannelInput, 257, ErrMessageTooLarge},
		{ChannelChat, 4097, ErrMessageTooLarge},
		{ChannelEffects, DefaultMTU, ErrMessageTooLarge}, // no fragmentation
		{ChannelWorld, DefaultMaxMessageSize + 1, ErrMessageTooLarge},
		{ChannelEffects, 100, nil},
		{ChannelChat, 0, nil},
	} {
		if err := s.Send(c.ch, make([]byte, c.size), n.now); !errors.Is(err, c.want) {
			t.Errorf("Send(%d, %d bytes) = %v, want %v", c.ch, c.size, err, c.want)
		}
	}
	s.Close("", n.now)
	if err := s.Send(ChannelChat, nil, n.now); !errors.Is(err, ErrClosed) {
		t.Errorf("after close: %v", err)
	}
}

func TestBackpressureAndDropOldest(t *testing.T) {
	chans := []ChannelConfig{
		{ID: 1, Reliability: ReliableOrdered, MaxUnackedBytes: 1000},
		{ID: 2, Reliability: Unreliable, MaxQueuedMessages: 3},
		{ID: 3, Reliability: Reliable, MaxQueuedMessages: 2},
	}
	cfg := Config{Channels: chans}
	n := newSimNet(t, 15, cfg, cfg, clean, clean)
	n.connect()
	s := n.s[0]
	// Reliable: 1000 unacknowledged bytes, but one message always fits.
	if err := s.Send(1, make([]byte, 1100), n.now); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(1, make([]byte, 1), n.now); !errors.Is(err, ErrBackpressure) {
		t.Fatalf("over MaxUnackedBytes: %v", err)
	}
	for range 2 {
		if err := s.Send(3, []byte{1}, n.now); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Send(3, []byte{1}, n.now); !errors.Is(err, ErrBackpressure) {
		t.Fatalf("over MaxQueuedMessages: %v", err)
	}
	// Unreliable: the oldest queued messages make way.
	for i := range 5 {
		if err := s.Send(2, []byte{byte(i)}, n.now); err != nil {
			t.Fatal(err)
		}
	}
	var got []byte
	n.onMessage = func(side int, m Message) {
		if m.Channel == 2 {
			got = append(got, m.Data[0])
		}
	}
	n.runFor(time.Second)
	if !bytes.Equal(got, []byte{2, 3, 4}) {
		t.Fatalf("unreliable channel delivered %v, want the newest three", got)
	}
	if st := s.Stats(); st.Channels[1].Dropped != 2 || st.PendingReliable != 0 {
		t.Fatalf("stats %+v", st.Channels[1])
	}
	// Acknowledged: room again.
	if err := s.Send(1, make([]byte, 900), n.now); err != nil {
		t.Fatalf("after acknowledgement: %v", err)
	}
}

// TestReceiverBackpressure: a receiver whose application does not read
// leaves datagrams unacknowledged beyond MaxReceiveBuffer; nothing is lost
// once it reads again.
func TestReceiverBackpressure(t *testing.T) {
	cfg := Config{MaxReceiveBuffer: 64 << 10}
	n := newSimNet(t, 16, Config{}, cfg, clean, clean)
	n.connect()
	const total = 400
	var got []uint32
	n.onMessage = func(side int, m Message) { got = append(got, binary.BigEndian.Uint32(m.Data)) }
	p := &sender{ch: ChannelActions, n: total, size: 500}
	n.hold[1] = true
	n.runUntil(func() bool {
		p.pump(t, n.s[0], n.now)
		return n.now.Sub(simEpoch) > 3*time.Second
	}, time.Minute)
	if b := n.s[1].inboxBytes; b > 64<<10+DefaultMTU {
		t.Fatalf("receiver buffered %d bytes, limit 64 KiB", b)
	}
	if n.s[1].Stats().Refused == 0 {
		t.Fatal("no datagram was refused")
	}
	n.hold[1] = false
	n.runUntil(func() bool { return len(got) == total }, time.Minute)
	for i, v := range got {
		if v != uint32(i) {
			t.Fatalf("message %d is %d", i, v)
		}
	}
}
