package transport

import (
	"bytes"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"
)

// controlPayloads returns the frames of a datagram, failing on frames of
// other channels than the control channel.
func controlPayloads(t *testing.T, b []byte) [][]byte {
	t.Helper()
	_, rest, err := parseHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for len(rest) > 0 {
		f, r, err := parseFrame(rest)
		if err != nil {
			t.Fatal(err)
		}
		if f.channel != ChannelControl {
			t.Errorf("frame of channel %d after Abort", f.channel)
		}
		out = append(out, f.payload)
		rest = r
	}
	return out
}

func TestAbortTellsThePeerAtOnce(t *testing.T) {
	n := newSimNet(t, 41, Config{}, Config{}, clean, clean)
	n.connect()
	n.runFor(time.Second)
	c, srv := n.s[0], n.s[1]
	for i := range 50 {
		_ = c.Send(ChannelChat, bytes.Repeat([]byte{byte(i)}, 100), n.now)
		_ = c.Send(ChannelEffects, bytes.Repeat([]byte{byte(i)}, 100), n.now)
	}
	if c.MemoryInUse() == 0 {
		t.Fatal("nothing queued")
	}
	kick := errors.New("kicked")
	if !c.Abort("kicked by the operator", kick) {
		t.Fatal("Abort did not start")
	}
	if c.Abort("twice", nil) {
		t.Fatal("a second Abort started again")
	}
	if c.State() != StateDisconnecting || c.Err() != nil {
		t.Fatalf("after Abort: %v, %v", c.State(), c.Err())
	}
	if d := c.Deadline(n.now); !d.Equal(n.now) {
		t.Fatalf("deadline %v, want now", d)
	}
	if err := c.Send(ChannelChat, []byte("late"), n.now); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after Abort: %v", err)
	}
	bye := disconnectMessage("kicked by the operator")
	if st := c.Stats(); st.PendingReliable != 0 || c.MemoryInUse() != len(bye) {
		t.Fatalf("queued data kept: %d pending, %d bytes", st.PendingReliable, c.MemoryInUse())
	}
	c.HandleTimeout(n.now.Add(time.Hour)) // no timer ends it before the disconnect is out
	b, ok := c.AppendDatagram(nil, n.now)
	if !ok {
		t.Fatal("no datagram after Abort")
	}
	frames := controlPayloads(t, b)
	if len(frames) != 1 || !bytes.Equal(frames[0], bye) {
		t.Fatalf("datagram after Abort carries %q", frames)
	}
	if c.State() != StateDisconnected || c.Err() != kick {
		t.Fatalf("after the disconnect: %v, %v", c.State(), c.Err())
	}
	if _, ok := c.AppendDatagram(nil, n.now); ok {
		t.Fatal("a datagram after the disconnect")
	}
	if d := c.Deadline(n.now); !d.IsZero() {
		t.Fatalf("deadline %v after the end", d)
	}
	if c.Abort("again", nil) || c.Err() != kick { // an ended session is left alone
		t.Fatalf("Err changed to %v", c.Err())
	}
	srv.HandleDatagram(b, n.now.Add(20*time.Millisecond))
	if err := srv.Err(); srv.State() != StateDisconnected || !errors.Is(err, ErrPeerClosed) ||
		!strings.Contains(err.Error(), "kicked by the operator") {
		t.Fatalf("peer: %v, %v", srv.State(), err)
	}
}

// TestAbortResendsMissedControl: the peer missed the client's ready
// message (and its copies); the abort datagram carries it again, so that the peer, which
// delivers control messages in order, reads the disconnect.
func TestAbortResendsMissedControl(t *testing.T) {
	now := simEpoch
	c, err := NewSession(Config{}, SessionParams{Client: true, ConnID: 7, InitialSeq: 1}, now)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewSession(Config{}, SessionParams{ConnID: 7, InitialSeq: 100, Token: 9}, now)
	if err != nil {
		t.Fatal(err)
	}
	pass := func(from, to *Session) {
		t.Helper()
		b, ok := from.AppendDatagram(nil, now)
		if !ok {
			t.Fatal("nothing to send")
		}
		to.HandleDatagram(b, now)
	}
	pass(c, srv) // hello
	pass(srv, c) // reply
	if c.State() != StateConnected {
		t.Fatalf("client %v", c.State())
	}
	if _, ok := c.AppendDatagram(nil, now); !ok { // ready, lost
		t.Fatal("no ready")
	}
	// Two more datagrams, lost too, carry its two redundant copies.
	for range 2 {
		if err := c.Send(ChannelChat, []byte("x"), now); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.AppendDatagram(nil, now); !ok {
			t.Fatal("nothing sent")
		}
	}
	c.Abort("", nil)
	pass(c, srv)
	if err := srv.Err(); !errors.Is(err, ErrPeerClosed) {
		t.Fatalf("server: %v, %v", srv.State(), err)
	}
	if !errors.Is(c.Err(), ErrClosed) {
		t.Fatalf("client err %v", c.Err())
	}
}

func TestMemoryInUse(t *testing.T) {
	n := newSimNet(t, 42, Config{}, Config{}, clean, clean)
	n.connect()
	n.runFor(time.Second)
	c, srv := n.s[0], n.s[1]
	n.hold[1] = true
	send := func(ch ChannelID, size int) []byte {
		t.Helper()
		msg := make([]byte, size)
		_, _ = rand.Read(msg) // incompressible
		if err := c.Send(ch, msg, n.now); err != nil {
			t.Fatal(err)
		}
		return msg
	}
	want := func(s *Session, bytes int) {
		t.Helper()
		if got := s.MemoryInUse(); got != bytes {
			t.Fatalf("MemoryInUse = %d, want %d", got, bytes)
		}
	}
	datagram := func() []byte {
		t.Helper()
		b, ok := c.AppendDatagram(nil, n.now)
		if !ok {
			t.Fatal("nothing to send")
		}
		return b
	}

	// Queued: reliable and unreliable messages, a reliable one counted once.
	send(ChannelChat, 100)
	want(c, 100)
	send(ChannelEffects, 50)
	want(c, 150)
	// Sent: the unreliable one is gone, the reliable one awaits its ack.
	d := datagram()
	want(c, 100)
	// Received but not read.
	srv.HandleDatagram(d, n.now)
	want(srv, 150)
	n.runFor(time.Second) // the acknowledgement comes back
	want(c, 0)
	n.hold[1] = false
	n.runFor(time.Millisecond)
	want(srv, 0)

	// Held back for ordering: the second message arrives first.
	n.hold[1] = true
	send(ChannelChat, 40)
	d1 := datagram()
	send(ChannelChat, 60)
	d2 := datagram()
	want(c, 100)
	srv.HandleDatagram(d2, n.now)
	want(srv, 60)
	srv.HandleDatagram(d1, n.now)
	want(srv, 100)
	n.hold[1] = false
	n.runFor(time.Second)
	want(srv, 0)
	want(c, 0)

	// Reassembly: the first fragment holds its payload and the group's
	// bookkeeping, not the whole message it announces.
	n.hold[1] = true
	send(ChannelAssets, 5000)
	want(c, 5000)
	srv.HandleDatagram(datagram(), n.now)
	frag := srv.set.fragPayload
	want(srv, frag+2+8+groupOverhead)
	if got := retained(&srv.asm); got != srv.MemoryInUse() {
		t.Fatalf("assembler retains %d bytes, MemoryInUse says %d", got, srv.MemoryInUse())
	}
	n.runFor(time.Second) // the rest, then the acknowledgements
	want(srv, 5000)       // now as one message in the inbox
	want(c, 0)
	n.hold[1] = false
	n.runFor(time.Millisecond)
	want(srv, 0)
}
