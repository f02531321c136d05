package transport

import (
	"errors"
	"net"
	"time"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// ErrSwarmSecure reports a Swarm configured with Security: a swarm's
// sessions are plaintext.
var ErrSwarmSecure = errors.New("transport: a swarm's sessions are plaintext")

// swarmBatch is how many datagrams a Swarm reads or writes per system call.
const swarmBatch = 64

// Swarm drives many client sessions to one server over one UDP socket,
// from its caller's goroutine: no goroutine, timer or channel per session.
// It is a load generator's transport: thousands of light clients share a
// few sockets, read and write in batches (recvmmsg and sendmmsg on Linux;
// runs of datagrams of one size leave as one UDP_SEGMENT message where the
// kernel offers it) and run their timers when the caller sweeps. Sessions are told apart by
// their connection id, as the server tells them apart.
//
// A Swarm's sessions are plaintext (ErrSwarmSecure). It is not safe for
// concurrent use; its sessions are used by its caller's goroutine only.
type Swarm struct {
	pc    *net.UDPConn
	batch interface {
		ReadBatch(ms []ipv4.Message, flags int) (int, error)
		WriteBatch(ms []ipv4.Message, flags int) (int, error)
	}
	seg   *segmenter // the batch's writes, segmented where the kernel can
	raddr *net.UDPAddr
	set   *settings
	cdc   *codec
	sess  map[uint32]*Session
	// due is each session's deadline as last computed: a session's
	// deadline moves only when it receives, sends or runs its timers,
	// all of which go through the swarm, so Sweep compares times instead
	// of asking every session.
	due map[*Session]time.Time

	in      []ipv4.Message
	touched map[*Session]struct{}
	arena   []byte
	out     []ipv4.Message
	bufs    [][]byte
	ends    []int
}

// NewSwarm returns a swarm of sessions to raddr over pc, which it owns
// from now on: Close closes it.
func NewSwarm(pc *net.UDPConn, raddr *net.UDPAddr, cfg Config) (*Swarm, error) {
	if cfg.Security != nil {
		return nil, ErrSwarmSecure
	}
	set, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	cdc, err := newCodec(set.maxMessage)
	if err != nil {
		return nil, err
	}
	s := &Swarm{pc: pc, raddr: raddr, set: set, cdc: cdc, sess: map[uint32]*Session{}, due: map[*Session]time.Time{}, touched: map[*Session]struct{}{}}
	if la, ok := pc.LocalAddr().(*net.UDPAddr); ok && la.IP.To4() != nil {
		s.batch = ipv4.NewPacketConn(pc)
	} else {
		s.batch = ipv6.NewPacketConn(pc)
	}
	s.seg = newSegmenter(s.batch, segmentSupported(pc))
	size := min(2*set.mtu, 1<<16)
	s.in = make([]ipv4.Message, swarmBatch)
	for i := range s.in {
		s.in[i].Buffers = [][]byte{make([]byte, size)}
	}
	return s, nil
}

// Open starts a new client session: its hello leaves with the next Write.
func (s *Swarm) Open(now time.Time) *Session {
	id := random32()
	for s.sess[id] != nil {
		id = random32()
	}
	sess := newSession(s.set, SessionParams{Client: true, ConnID: id, InitialSeq: random32()}, now)
	sess.cdc = s.cdc
	s.sess[id] = sess
	s.due[sess] = now // the hello is due
	return sess
}

// Forget drops a session: datagrams for it are ignored from now on.
func (s *Swarm) Forget(sess *Session) {
	if s.sess[sess.connID] == sess {
		delete(s.sess, sess.connID)
		delete(s.due, sess)
	}
}

// Len is the number of sessions.
func (s *Swarm) Len() int { return len(s.sess) }

// Read waits until deadline for datagrams (one batch at most), hands each
// to its session, and appends the sessions that received any, each once,
// to dst. A deadline that passes is not an error.
func (s *Swarm) Read(dst []*Session, deadline time.Time, now func() time.Time) ([]*Session, error) {
	if err := s.pc.SetReadDeadline(deadline); err != nil {
		return dst, err
	}
	n, err := s.batch.ReadBatch(s.in, 0)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return dst, nil
		}
		return dst, err
	}
	at := now()
	for i := range n {
		b := s.in[i].Buffers[0][:s.in[i].N]
		id, ok := peekConnID(b)
		if !ok {
			continue
		}
		sess := s.sess[id]
		if sess == nil {
			continue
		}
		sess.HandleDatagram(b, at)
		s.due[sess] = sess.Deadline(at)
		if _, seen := s.touched[sess]; !seen {
			s.touched[sess] = struct{}{}
			dst = append(dst, sess)
		}
	}
	clear(s.touched)
	return dst, nil
}

// Write sends what sessions have to send at now, flushing their queued
// messages first, in as few system calls as the kernel allows.
func (s *Swarm) Write(sessions []*Session, now time.Time) error {
	s.arena, s.ends = s.arena[:0], s.ends[:0]
	for _, sess := range sessions {
		sess.Flush()
		s.appendFrom(sess, now)
	}
	return s.send()
}

// Sweep runs every session's due timers at now (retransmissions,
// acknowledgements, keep-alives, the flush interval) and sends what they
// produce: the caller's one timer for all of them.
func (s *Swarm) Sweep(now time.Time) error {
	s.arena, s.ends = s.arena[:0], s.ends[:0]
	for sess, d := range s.due {
		if !d.IsZero() && !d.After(now) {
			if d = sess.Deadline(now); !d.IsZero() && !d.After(now) {
				sess.HandleTimeout(now)
			}
			s.appendFrom(sess, now)
		}
	}
	return s.send()
}

// appendFrom copies a session's datagrams into the arena.
func (s *Swarm) appendFrom(sess *Session, now time.Time) {
	for {
		var ok bool
		if s.arena, ok = sess.AppendDatagram(s.arena, now); !ok {
			s.due[sess] = sess.Deadline(now)
			return
		}
		s.ends = append(s.ends, len(s.arena))
	}
}

// send writes the arena's datagrams.
func (s *Swarm) send() error {
	s.out, s.bufs = s.out[:0], s.bufs[:0]
	start := 0
	for _, end := range s.ends {
		s.bufs = append(s.bufs, s.arena[start:end])
		start = end
	}
	for i := range s.bufs {
		s.out = append(s.out, ipv4.Message{Buffers: s.bufs[i : i+1], Addr: s.raddr})
	}
	err := s.seg.write(s.out)
	clear(s.out) // drop the buffers until the next call
	return err
}

// Close closes the socket. The sessions end without telling the server,
// which times them out.
func (s *Swarm) Close() error {
	s.cdc.close()
	return s.pc.Close()
}
