package transport

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var clean = impair{delay: 20 * time.Millisecond}

func TestHandshakeAndClose(t *testing.T) {
	n := newSimNet(t, 1, Config{}, Config{}, clean, clean)
	n.connect()
	if got := n.now.Sub(simEpoch); got > 100*time.Millisecond {
		t.Errorf("handshake took %v over a 40 ms RTT", got)
	}
	var got []Message
	n.onMessage = func(side int, m Message) { got = append(got, m) }
	if err := n.s[0].Send(ChannelChat, []byte("hello"), n.now); err != nil {
		t.Fatal(err)
	}
	n.s[0].Close("bye now", n.now)
	n.runUntil(func() bool { return n.s[0].State() == StateDisconnected && n.s[1].State() == StateDisconnected }, 5*time.Second)
	if len(got) != 1 || string(got[0].Data) != "hello" || got[0].Channel != ChannelChat {
		t.Fatalf("received %v", got)
	}
	if err := n.s[0].Err(); !errors.Is(err, ErrClosed) {
		t.Errorf("client err = %v", err)
	}
	if err := n.s[1].Err(); !errors.Is(err, ErrPeerClosed) || !strings.Contains(err.Error(), "bye now") {
		t.Errorf("server err = %v", err)
	}
	st := n.s[0].Stats()
	if st.RTT < 35*time.Millisecond || st.RTT > 50*time.Millisecond {
		t.Errorf("RTT = %v, want about 40ms", st.RTT)
	}
}

func TestHandshakeRejectsChannelMismatch(t *testing.T) {
	n := newSimNet(t, 2, Config{Channels: testLanes()}, Config{}, clean, clean)
	n.runUntil(func() bool { return n.s[0].State() == StateDisconnected }, 10*time.Second)
	if err := n.s[0].Err(); !errors.Is(err, ErrHandshake) || !strings.Contains(err.Error(), "mismatch") {
		t.Fatalf("client err = %v", err)
	}
	n.runUntil(func() bool { return n.s[1].State() == StateDisconnected }, 10*time.Second)
}

func TestIdleTimeoutAndKeepalive(t *testing.T) {
	n := newSimNet(t, 3, Config{}, Config{}, clean, clean)
	n.connect()
	// Keepalives hold an idle connection open.
	n.runFor(30 * time.Second)
	if n.s[0].State() != StateConnected || n.s[1].State() != StateConnected {
		t.Fatalf("idle connection dropped: %v %v", n.s[0].Err(), n.s[1].Err())
	}
	// A dead link times both sides out.
	n.link[0].loss, n.link[1].loss = 1, 1
	n.runUntil(func() bool {
		return n.s[0].State() == StateDisconnected && n.s[1].State() == StateDisconnected
	}, 15*time.Second)
	if !errors.Is(n.s[0].Err(), ErrTimeout) || !errors.Is(n.s[1].Err(), ErrTimeout) {
		t.Fatalf("errors %v, %v", n.s[0].Err(), n.s[1].Err())
	}
}

func TestHandshakeTimeout(t *testing.T) {
	n := newSimNet(t, 4, Config{}, Config{}, impair{loss: 1}, clean)
	n.runUntil(func() bool { return n.s[0].State() == StateDisconnected }, 10*time.Second)
	if !errors.Is(n.s[0].Err(), ErrTimeout) {
		t.Fatalf("err = %v", n.s[0].Err())
	}
}

func TestFlushInterval(t *testing.T) {
	cfg := Config{FlushInterval: 33 * time.Millisecond}
	n := newSimNet(t, 5, cfg, cfg, clean, clean)
	n.connect()
	before := n.s[0].Stats().PacketsSent
	for i := range 20 {
		if err := n.s[0].Send(ChannelInput, []byte{byte(i)}, n.now); err != nil {
			t.Fatal(err)
		}
		n.runFor(time.Millisecond)
	}
	got := 0
	n.onMessage = func(int, Message) { got++ }
	n.runFor(100 * time.Millisecond)
	// 20 messages over 20 ms: one or two ticks, not 20 datagrams.
	if sent := n.s[0].Stats().PacketsSent - before; sent > 4 || got != 20 {
		t.Fatalf("%d datagrams for 20 batched messages, %d delivered", sent, got)
	}
	// An explicit Flush sends at once.
	if err := n.s[0].Send(ChannelInput, []byte{1}, n.now); err != nil {
		t.Fatal(err)
	}
	n.s[0].Flush()
	if _, ok := n.s[0].AppendDatagram(nil, n.now); !ok {
		t.Fatal("Flush did not make the message sendable")
	}
}
