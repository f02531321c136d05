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

