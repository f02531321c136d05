package transport

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// newReliableSimNet is a simulated network whose sessions run in
// reliable-link mode, as over a stream: the link must neither lose nor
// reorder.
func newReliableSimNet(t testing.TB, seed uint64, link impair) *simNet {
	t.Helper()
	n := newSimNet(t, seed, Config{}, Config{}, link, link)
	var err error
	n.s[0], err = NewSession(Config{}, SessionParams{Client: true, ConnID: 0xC0FFEE, InitialSeq: 1000, ReliableLink: true}, n.now)
	if err != nil {
		t.Fatal(err)
	}
	n.s[1], err = NewSession(Config{}, SessionParams{ConnID: 0xC0FFEE, InitialSeq: 5000, Token: 42, ReliableLink: true}, n.now)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// wireCount counts what the sessions of a simNet put on the wire.
type wireCount struct {
	ackSections [2]int
	pings       [2]int
	frames      [2]map[[2]uint16]int // (channel, sequence) of reliable frames → copies
}

func (w *wireCount) tap(t *testing.T) func(int, []byte) {
	w.frames = [2]map[[2]uint16]int{{}, {}}
	return func(from int, b []byte) {
		h, rest, err := parseHeader(b)
		if err != nil {
			t.Errorf("unparsable datagram: %v", err)
			return
		}
		if h.flags&flagAck != 0 {
			w.ackSections[from]++
		}
		if h.flags&flagPing != 0 {
			w.pings[from]++
		}
		for len(rest) > 0 {
			f, r, err := parseFrame(rest)
			if err != nil {
				t.Errorf("unparsable frame: %v", err)
				return
			}
			if f.flags&frameReliable != 0 && f.flags&frameFragment == 0 {
				w.frames[from][[2]uint16{uint16(f.channel), f.seq}]++
			}
			rest = r
		}
	}
}

func TestReliableLinkBypassesAcknowledgements(t *testing.T) {
	n := newReliableSimNet(t, 31, impair{delay: 20 * time.Millisecond, rate: 1 << 20})
	var w wireCount
	n.tap = w.tap(t)
	n.connect()
	const total = 3000
	var got [2][]uint32
	n.onMessage = func(side int, m Message) {
		v := binary.BigEndian.Uint32(m.Data)
		switch m.Channel {
		case ChannelInput: // Critical: copies would ride on UDP
			got[0] = append(got[0], v)
		case ChannelActions:
			got[1] = append(got[1], v)
		}
	}
	in := &sender{ch: ChannelInput, n: total, size: 40}
	act := &sender{ch: ChannelActions, n: total, size: 200}
	n.runUntil(func() bool {
		in.pump(t, n.s[0], n.now)
		act.pump(t, n.s[0], n.now)
		return len(got[0]) == total && len(got[1]) == total
	}, time.Minute)
	for k, vs := range got {
		for i, v := range vs {
			if v != uint32(i) {
				t.Fatalf("stream %d: message %d is %d", k, i, v)
			}
		}
	}
	if w.ackSections != [2]int{} {
		t.Errorf("ack sections sent: %v", w.ackSections)
	}
	for side, frames := range w.frames {
		for k, c := range frames {
			if c != 1 {
				t.Fatalf("side %d sent frame %v %d times", side, k, c)
			}
		}
	}
	if c := len(w.frames[0]); c < 2*total {
		t.Errorf("client sent %d distinct reliable frames, want at least %d", c, 2*total)
	}
	for i, s := range n.s {
		st := s.Stats()
		if st.PacketsLost != 0 || st.Timeouts != 0 || st.PendingReliable != 0 || st.InFlightBytes != 0 {
			t.Errorf("side %d: %+v", i, st)
		}
		for _, cs := range st.Channels {
			if cs.Retransmits != 0 {
				t.Errorf("side %d channel %s: %d retransmits", i, cs.Name, cs.Retransmits)
			}
		}
		if s.sent.q.len() != 0 || s.MemoryInUse() != 0 {
			t.Errorf("side %d holds %d sent datagrams, %d bytes", i, s.sent.q.len(), s.MemoryInUse())
		}
	}
}

func TestReliableLinkKeepaliveIdleAndClose(t *testing.T) {
	n := newReliableSimNet(t, 32, clean)
	var w wireCount
	n.tap = w.tap(t)
	n.connect()
	// Nothing answers a ping on a reliable link: each side keeps its own
	// direction alive, about once per KeepAliveInterval (1 s).
	n.runFor(30 * time.Second)
	if n.s[0].State() != StateConnected || n.s[1].State() != StateConnected {
		t.Fatalf("idle connection dropped: %v %v", n.s[0].Err(), n.s[1].Err())
	}
	for i, p := range w.pings {
		if p < 25 || p > 32 {
			t.Errorf("side %d sent %d pings in 30 s", i, p)
		}
	}
	// Graceful close delivers queued data, then the reason, and both end
	// without waiting for acknowledgements.
	var got []string
	n.onMessage = func(_ int, m Message) { got = append(got, string(m.Data)) }
	for _, s := range []string{"a", "b", "c"} {
		if err := n.s[0].Send(ChannelChat, []byte(s), n.now); err != nil {
			t.Fatal(err)
		}
	}
	start := n.now
	n.s[0].Close("done", n.now)
	n.runUntil(func() bool {
		return n.s[0].State() == StateDisconnected && n.s[1].State() == StateDisconnected
	}, 5*time.Second)
	if d := n.now.Sub(start); d > 25*time.Millisecond {
		t.Errorf("close took %v over a 20 ms link", d)
	}
	if strings.Join(got, "") != "abc" {
		t.Errorf("received %q", got)
	}
	if err := n.s[0].Err(); !errors.Is(err, ErrClosed) {
		t.Errorf("client err = %v", err)
	}
	if err := n.s[1].Err(); !errors.Is(err, ErrPeerClosed) || !strings.Contains(err.Error(), "done") {
		t.Errorf("server err = %v", err)
	}
	if len(n.queue) != 0 {
		t.Errorf("%d datagrams sent after the disconnect", len(n.queue))
	}
	if w.ackSections != [2]int{} {
		t.Errorf("ack sections sent: %v", w.ackSections)
	}

	// A dead link still times both sides out.
	n = newReliableSimNet(t, 33, clean)
	n.connect()
	n.link[0].loss, n.link[1].loss = 1, 1
	n.runFor(11 * time.Second) // IdleTimeout is 10 s
	if !errors.Is(n.s[0].Err(), ErrTimeout) || !errors.Is(n.s[1].Err(), ErrTimeout) {
		t.Errorf("after 11 s of silence: %v (%v), %v (%v)", n.s[0].State(), n.s[0].Err(), n.s[1].State(), n.s[1].Err())
	}
}

// TestReliableLinkReceiverFullAborts: with nothing to retransmit, a
// datagram the receiver cannot keep ends the connection, and says so.
func TestReliableLinkReceiverFullAborts(t *testing.T) {
	n := newSimNet(t, 34, Config{}, Config{}, clean, clean)
	cfg := Config{MaxReceiveBuffer: 4 << 10}
	var err error
	n.s[0], _ = NewSession(Config{}, SessionParams{Client: true, ConnID: 1, ReliableLink: true}, n.now)
	if n.s[1], err = NewSession(cfg, SessionParams{ConnID: 1, ReliableLink: true}, n.now); err != nil {
		t.Fatal(err)
	}
	n.connect()
	n.hold[1] = true
	msg := make([]byte, 1000)
	n.runUntil(func() bool {
		_ = n.s[0].Send(ChannelChat, msg, n.now)
		return n.s[0].State() == StateDisconnected && n.s[1].State() == StateDisconnected
	}, 5*time.Second)
	if err := n.s[1].Err(); !errors.Is(err, ErrMemoryBudget) {
		t.Errorf("server err = %v", err)
	}
	if err := n.s[0].Err(); !errors.Is(err, ErrPeerClosed) || !strings.Contains(err.Error(), "receive buffer full") {
		t.Errorf("client err = %v", err)
	}
}

// countingStream is a client's stream PacketConn that counts the
// acknowledgement sections of the (plaintext) datagrams both ways.
type countingStream struct {
	*streamPacketConn
	mu              sync.Mutex
	datagrams, acks int
}

func (c *countingStream) note(b []byte) {
	if h, _, err := parseHeader(b); err == nil {
		c.mu.Lock()
		c.datagrams++
		if h.flags&flagAck != 0 {
			c.acks++
		}
		c.mu.Unlock()
	}
}

func (c *countingStream) ReadFrom(b []byte) (int, net.Addr, error) {
	n, a, err := c.streamPacketConn.ReadFrom(b)
	if err == nil {
		c.note(b[:n])
	}
	return n, a, err
}

func (c *countingStream) WriteTo(b []byte, a net.Addr) (int, error) {
	c.note(b)
	return c.streamPacketConn.WriteTo(b, a)
}

// sendAll sends n numbered messages on ch, retrying on backpressure.
func sendAll(c *Conn, ch ChannelID, n int) error {
	for i := 0; i < n; {
		err := c.Send(ch, binary.BigEndian.AppendUint32(make([]byte, 0, 64), uint32(i)))
		switch {
		case errors.Is(err, ErrBackpressure):
			time.Sleep(time.Millisecond)
		case err != nil:
			return err
		default:
			i++
		}
	}
	return nil
}

// TestTCPReliableLinkNoAcknowledgements exchanges many reliable messages
// over TCP loopback: nothing is retransmitted or repeated, and no
// datagram carries an acknowledgement section.
func TestTCPReliableLinkNoAcknowledgements(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	l, err := ListenTCP(ctx, "127.0.0.1:0", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := acceptOne(ctx, l)
	raw, err := (&net.Dialer{}).DialContext(ctx, "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	pc := &countingStream{streamPacketConn: &streamPacketConn{s: newTCPStream(raw)}}
	if !isReliableLink(pc) {
		t.Fatal("a stream PacketConn is not a reliable link")
	}
	cc, err := Dial(ctx, pc, raw.RemoteAddr(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	sc := <-accepted
	if sc == nil {
		t.Fatal("nothing accepted")
	}
	for _, c := range []*Conn{cc, sc} {
		c.mu.Lock()
		on := c.sess.reliableLink
		c.mu.Unlock()
		if !on {
			t.Fatal("the driver did not set SessionParams.ReliableLink on a stream connection")
		}
	}
	const total = 2000
	errs := make(chan error, 4)
	for _, c := range []*Conn{cc, sc} {
		for _, ch := range []ChannelID{ChannelInput, ChannelActions} {
			go func() { errs <- sendAll(c, ch, total) }()
		}
	}
	for _, c := range []*Conn{sc, cc} {
		next := map[ChannelID]uint32{}
		for range 2 * total {
			m, err := c.Receive(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if v := binary.BigEndian.Uint32(m.Data); v != next[m.Channel] {
				t.Fatalf("channel %d: message %d, want %d", m.Channel, v, next[m.Channel])
			}
			next[m.Channel]++
		}
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	pc.mu.Lock()
	datagrams, acks := pc.datagrams, pc.acks
	pc.mu.Unlock()
	if datagrams == 0 || acks != 0 {
		t.Errorf("%d datagrams, %d with an acknowledgement section", datagrams, acks)
	}
	for i, c := range []*Conn{cc, sc} {
		st := c.Stats()
		if st.PacketsLost != 0 || st.Timeouts != 0 {
			t.Errorf("side %d: %d lost, %d timeouts", i, st.PacketsLost, st.Timeouts)
		}
		for _, cs := range st.Channels {
			if cs.Retransmits != 0 {
				t.Errorf("side %d channel %s: %d retransmits", i, cs.Name, cs.Retransmits)
			}
		}
	}
}

// FuzzReliableLinkHandleDatagram is FuzzSessionHandleDatagram in
// reliable-link mode: the sessions must also never send an
// acknowledgement section.
func FuzzReliableLinkHandleDatagram(f *testing.F) {
	fuzzSessions(f, true)
}

// BenchmarkSessionMessageModes measures a 64-byte reliable-ordered message
// through two sessions, one message per datagram, with the acknowledgement
// machinery and in reliable-link mode: CPU, allocations and the bytes both
// sides put on the wire per message.
func BenchmarkSessionMessageModes(b *testing.B) {
	for _, mode := range []string{"acknowledged", "reliable-link"} {
		b.Run(mode, func(b *testing.B) {
			n := newSimNet(b, 1, Config{}, Config{}, impair{}, impair{})
			if mode == "reliable-link" {
				n = newReliableSimNet(b, 1, impair{})
			}
			n.connect()
			a, s := n.s[0], n.s[1]
			msg := make([]byte, 64)
			var buf []byte
			now := n.now
			wire := 0
			exchange := func(from, to *Session) {
				for {
					var ok bool
					buf, ok = from.AppendDatagram(buf[:0], now)
					if !ok {
						return
					}
					wire += len(buf)
					to.HandleDatagram(buf, now)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := a.Send(ChannelActions, msg, now); err != nil {
					b.Fatal(err)
				}
				now = now.Add(time.Millisecond)
				exchange(a, s)
				for {
					if _, ok := s.Receive(); !ok {
						break
					}
				}
				now = now.Add(5 * time.Millisecond) // ack delay
				exchange(s, a)
			}
			b.ReportMetric(float64(wire)/float64(b.N), "wire-B/msg")
		})
	}
}
