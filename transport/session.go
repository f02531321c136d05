package transport

import (
	"fmt"
	"time"
)

// State is a connection's lifecycle state.
type State uint8

const (
	StateDisconnected State = iota
	StateConnecting
	StateConnected
	StateDisconnecting
)

func (s State) String() string {
	switch s {
	case StateDisconnected:
		return "disconnected"
	case StateConnecting:
		return "connecting"
	case StateConnected:
		return "connected"
	case StateDisconnecting:
		return "disconnecting"
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// Message is a message received on a channel.
type Message struct {
	Channel ChannelID
	Data    []byte
}

// SessionParams identify one side of a connection.
type SessionParams struct {
	// Client selects the client role, which starts the handshake.
	Client bool
	// ConnID is the connection id carried by every datagram. The client
	// chooses it; the server takes it from the client's hello.
	ConnID uint32
	// InitialSeq is the sequence of the first datagram sent. Drivers pick it
	// at random.
	InitialSeq uint32
	// Token is the server's handshake token, which the client must echo.
	// Drivers pick it at random.
	Token uint32
	// ReliableLink declares that the datagrams travel over a link that
	// neither loses nor reorders them (a TCP or WebSocket stream). The
	// session then skips the acknowledgement machinery: it requests and
	// sends no acknowledgements (and ignores any it receives), detects no
	// loss, retransmits nothing, sends no redundant copies and considers
	// reliable frames delivered once written. Both sides must agree.
	ReliableLink bool
}

// Session is the state machine of one connection, without I/O: feed it
// received datagrams with HandleDatagram, call HandleTimeout when the time
// returned by Deadline has come, and after either call take the datagrams
// to send with AppendDatagram until it reports false. Every method takes the
// current time explicitly. A Session is not safe for concurrent use.
type Session struct {
	set    *settings
	client bool
	connID uint32
	// reliableLink: the link delivers every datagram in order (see
	// SessionParams.ReliableLink).
	reliableLink bool
	state        State
	err          error // why the session ended
	hs           handshaker

	cdc   *codec
	async func(*compressJob) bool // hands large messages to a worker pool; nil compresses inline

	send   []*sendChannel // indexed like set.channels; 0 is control
	recv   []*recvChannel
	levels [numPriorities][]*sendChannel
	cursor [numPriorities]int
	turn   [numPriorities]bool // the channel at cursor got its quantum

	// Sending.
	nextSeq  uint32
	sent     sentHistory
	rtt      rttStats
	pacer    pacer
	cc       congestionController
	dlv      delivery
	rtoCount int
	dgGen    uint64
	lastSent time.Time
	pingDue  bool
	flushReq bool
	nextTick time.Time

	// Receiving.
	acks         ackVector
	ackPending   bool
	ackEliciting int
	ackDeadline  time.Time
	elicitedAt   time.Time // arrival of the latest ack-eliciting datagram
	finalAck     bool      // one acknowledgement owed after the peer disconnected
	lastRecv     time.Time
	asm          assembler
	inbox        deque[Message]
	inboxBytes   int
	scratch      []frame

	// Lifecycle.
	deadline  time.Time // handshake or close deadline
	closeMsg  string
	byeQueued bool
	aborting  bool // the next datagram carries the disconnect, then the session ends
	helloSeen bool

	stats    counters
	lossRate float64
	lossSlow float64
	// lossSamples counts the datagrams lossSlow has seen.
	lossSamples uint64
}

// NewSession returns the state machine of one side of a connection. A
// client session starts its handshake at once; a server session waits for
// the client's hello.
func NewSession(cfg Config, p SessionParams, now time.Time) (*Session, error) {
	set, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	return newSession(set, p, now), nil
}

func newSession(set *settings, p SessionParams, now time.Time) *Session {
	s := &Session{
		set:          set,
		client:       p.Client,
		connID:       p.ConnID,
		reliableLink: p.ReliableLink,
		state:        StateConnecting,
		hs:           &plainHandshake{digest: set.digest, token: p.Token},
		nextSeq:      p.InitialSeq,
		pacer:        newPacer(set.budget, set.mtu, now),
		cc:           newController(set, now),
		lastSent:     now,
		lastRecv:     now,
		deadline:     now.Add(set.handshake),
		asm:          assembler{limit: set.maxReassembly},
	}
	s.sent.reorderPackets, s.sent.reorderEighths = packetThreshold, 1
	s.dlv.pace = bucket{last: now}
	s.setPacing(now)
	s.dlv.pace.tokens = s.dlv.pace.burst
	if set.flushInterval > 0 {
		s.nextTick = now.Add(set.flushInterval)
	}
	n := len(set.channels)
	sends, recvs := make([]sendChannel, n), make([]recvChannel, n)
	s.send, s.recv = make([]*sendChannel, n), make([]*recvChannel, n)
	for i := range set.channels {
		cs := &set.channels[i]
		sends[i].cfg, recvs[i].cfg = cs, cs
		if cs.protected() && !p.ReliableLink {
			recvs[i].par = &parityRecv{}
		}
		s.send[i], s.recv[i] = &sends[i], &recvs[i]
		lvl := int(cs.Priority) - 1
		s.levels[lvl] = append(s.levels[lvl], s.send[i])
	}
	if s.client {
		s.queueControl(s.hs.hello())
	}
	return s
}

// State returns the lifecycle state.
func (s *Session) State() State { return s.state }

// Err returns why the session ended, or nil while it is not Disconnected.
func (s *Session) Err() error {
	if s.state != StateDisconnected {
		return nil
	}
	return s.err
}

// halfOpen reports a server session that has not yet seen the client's
// ready message. It does not retransmit on timeouts, so a spoofed hello
// cannot make it send more than it received.
func (s *Session) halfOpen() bool { return !s.client && s.state == StateConnecting }

// codec returns the compression codec, creating it on first use.
func (s *Session) codec() (*codec, error) {
	if s.cdc == nil {
		c, err := newCodec(s.set.maxMessage)
		if err != nil {
			return nil, err
		}
		s.cdc = c
	}
	return s.cdc, nil
}

// Send queues a message on a channel. The data is copied. It returns
// ErrBackpressure when a reliable channel is full (see ChannelConfig),
// ErrMessageTooLarge, ErrUnknownChannel, ErrNotConnected before the
// handshake completes and ErrClosed once closing.
func (s *Session) Send(ch ChannelID, data []byte, now time.Time) error {
	i := s.set.byID[ch]
	if ch == ChannelControl || i < 0 {
		return fmt.Errorf("%w: %d", ErrUnknownChannel, ch)
	}
	switch s.state {
	case StateConnecting:
		return ErrNotConnected
	case StateDisconnecting, StateDisconnected:
		return ErrClosed
	}
	c := s.send[i]
	if len(data) > c.cfg.maxSize {
		return fmt.Errorf("%w: %d bytes, channel %d allows %d", ErrMessageTooLarge, len(data), ch, c.cfg.maxSize)
	}
	if err := c.admit(len(data)); err != nil {
		return err
	}
	if len(data) <= smallPayload && !c.cfg.wantsCompression(len(data)) {
		// The usual game message: record and payload in one allocation.
		sm := new(smallMsg)
		m := s.initMsg(&sm.m, c, len(data))
		m.setPayload(append(sm.buf[:0:len(data)], data...), false, s.set)
		s.enqueue(c, m, now)
		return nil
	}
	m := s.newMsg(c, len(data))
	payload := append(make([]byte, 0, len(data)), data...)
	if c.cfg.wantsCompression(len(data)) {
		if len(data) >= asyncCompressMin && s.async != nil {
			m.pending = true
			if s.async(&compressJob{ch: ch, msg: m, src: payload}) {
				c.enqueue(m)
				return nil
			}
			m.pending = false
		}
		cdc, err := s.codec()
		if err != nil {
			return err
		}
		s.finishCompression(m, payload, cdc.compress(payload))
	} else {
		m.setPayload(payload, false, s.set)
	}
	s.enqueue(c, m, now)
	return nil
}

// enqueue queues a message whose payload is set on its channel.
func (s *Session) enqueue(c *sendChannel, m *outMsg, now time.Time) {
	c.enqueue(m)
	if s.set.flushInterval > 0 && !s.nextTick.After(now) {
		s.nextTick = nextGrid(s.nextTick, now, s.set.flushInterval)
	}
}

// smallPayload is the largest payload a smallMsg holds.
const smallPayload = 128

// smallMsg is a small message's record and payload in one allocation.
type smallMsg struct {
	m   outMsg
	buf [smallPayload]byte
}

// nextGrid returns the first time after now on the grid t + k·step.
func nextGrid(t, now time.Time, step time.Duration) time.Time {
	return t.Add((now.Sub(t)/step + 1) * step)
}

func (s *Session) newMsg(c *sendChannel, size int) *outMsg {
	return s.initMsg(new(outMsg), c, size)
}

// initMsg makes m the channel's next message, of size bytes.
func (s *Session) initMsg(m *outMsg, c *sendChannel, size int) *outMsg {
	m.seq, m.size = c.nextSeq, size
	c.nextSeq++
	if c.cfg.Reliability.reliable() {
		m.flags |= frameReliable
	}
	if c.cfg.Reliability.sequenced() {
		m.flags |= frameOrdered
	}
	return m
}

// finishCompression sets the payload of m: the compressed form when smaller.
func (s *Session) finishCompression(m *outMsg, raw, compressed []byte) {
	if len(compressed) < len(raw) {
		m.setPayload(compressed, true, s.set)
	} else {
		m.setPayload(raw, false, s.set)
	}
}

// compressed completes a job handed to the worker pool.
func (s *Session) compressed(j *compressJob) {
	if j.msg.dropped || !j.msg.pending {
		return
	}
	j.msg.pending = false
	s.finishCompression(j.msg, j.src, j.out)
}

// queueControl queues a control message.
func (s *Session) queueControl(p []byte) {
	c := s.send[0]
	m := s.newMsg(c, len(p))
	m.setPayload(p, false, s.set)
	c.enqueue(m)
}

// Flush asks for everything queued to be sent now, without waiting for the
// next FlushInterval tick.
func (s *Session) Flush() {
	if s.set.flushInterval > 0 {
		s.flushReq = true
	}
}

// MemoryInUse returns the bytes of message data the session holds: queued
// messages, reliable messages sent but not yet acknowledged, messages
// received but not yet read (or held back for ordering) and the fragments
// of messages being reassembled, with the buffers that index them. A
// reliable message is counted once, whether queued or sent.
func (s *Session) MemoryInUse() int {
	n := s.inboxBytes + s.asm.memory()
	for i, c := range s.send {
		if c.reliable() {
			n += c.unackedN // queued ones included
		} else {
			n += c.queued
		}
		n += s.recv[i].heldBytes
		if p := s.recv[i].par; p != nil {
			n += p.bytes
		}
	}
	return n
}

// Receive returns the next received message, if any.
func (s *Session) Receive() (Message, bool) {
	if s.inbox.len() == 0 {
		return Message{}, false
	}
	m := s.inbox.pop()
	s.inboxBytes -= len(m.Data)
	return m, true
}

// Close starts a graceful close: queued reliable data is delivered, then a
// disconnect message with the reason, within CloseTimeout. A session still
// in its handshake ends at once.
func (s *Session) Close(reason string, now time.Time) {
	switch s.state {
	case StateConnecting:
		s.end(ErrClosed)
	case StateConnected:
		s.state = StateDisconnecting
		s.err = ErrClosed
		s.closeMsg = reason
		s.deadline = now.Add(s.set.closeTimeout)
		s.progressClose()
	}
}

// Abort ends the session at once, telling the peer: queued and
// unacknowledged data is dropped, and the very next datagram
// (AppendDatagram, which Deadline asks for at once) carries a disconnect
// message with the reason, after which the session is Disconnected and Err
// returns cause (ErrClosed if cause is nil). Control messages the peer may
// still miss ride in that datagram again, so that it can deliver the
// disconnect in order. Over a lossy link the peer learns only if that
// datagram arrives; otherwise it times out as before. Abort reports
// whether it began ending the session: a session that has ended, or is
// aborting already, is left alone.
func (s *Session) Abort(reason string, cause error) bool {
	if s.state == StateDisconnected || s.aborting {
		return false
	}
	if cause == nil {
		cause = ErrClosed
	}
	s.err = cause
	s.state = StateDisconnecting
	s.aborting = true
	for _, c := range s.send[1:] {
		c.drop()
	}
	s.send[0].resend()
	s.queueControl(disconnectMessage(reason))
	s.byeQueued = true
	s.pingDue = false
	return true
}

// progressClose sends the disconnect message once the application's
// reliable data is acknowledged, and ends once that is acknowledged too.
func (s *Session) progressClose() {
	if s.state != StateDisconnecting {
		return
	}
	if !s.byeQueued {
		for _, c := range s.send[1:] {
			if !c.idle() {
				return
			}
		}
		s.queueControl(disconnectMessage(s.closeMsg))
		s.byeQueued = true
		return
	}
	if s.send[0].idle() {
		s.end(s.err)
	}
}

// end moves to Disconnected and releases the sending state.
func (s *Session) end(err error) {
	if s.state == StateDisconnected {
		return
	}
	s.state = StateDisconnected
	if s.err == nil {
		s.err = err
	}
	for _, c := range s.send {
		c.drop()
	}
	s.aborting = false
	s.sent = sentHistory{reorderPackets: packetThreshold, reorderEighths: 1}
	s.asm = assembler{}
}
