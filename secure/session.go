package secure

import (
	"fmt"
)

// DefaultRekeyAfter is how many datagrams a direction seals under one key
// before it moves to the next key phase: 2^23, the AES-GCM confidentiality
// limit QUIC sets for packet protection (RFC 9001 §6.6). That is about 2.3
// hours at 1,000 datagrams per second, and 512 times before the 32-bit wire
// sequence wraps.
const DefaultRekeyAfter = 1 << 23

// Overhead is what sealing adds to a datagram's payload: one flags byte and
// the 16-byte GCM tag.
const Overhead = 1 + tagSize

const (
	flagKeyPhase = 1 << 0
	knownFlags   = flagKeyPhase
)

// SessionStats counts a session's datagrams.
type SessionStats struct {
	Sealed    uint64 // datagrams sealed
	Opened    uint64 // datagrams opened and accepted
	Tampered  uint64 // dropped: authentication failed (tampered, forged or wrong keys)
	Replayed  uint64 // dropped: sequence already received or older than the window
	Malformed uint64 // dropped: too short or reserved flag bits set

	KeyUpdatesSent     uint64 // key phase changes of the sending direction
	KeyUpdatesReceived uint64 // key phase changes of the receiving direction
}

// keyPhase is the keys of one direction in one key phase.
type keyPhase struct {
	keys   trafficKeys
	secret secret
	phase  byte // 0 or 1: the key phase bit on the wire
}

func newKeyPhase(s secret, phase byte) keyPhase {
	return keyPhase{keys: newTrafficKeys(&s), secret: s, phase: phase}
}

func (k *keyPhase) next() keyPhase { return newKeyPhase(nextSecret(&k.secret), k.phase^1) }

// Session is an established connection's packet protection: AES-256-GCM
// per direction, nonces derived from the datagram sequence, a replay
// window and key updates. It is a pure value: not safe for concurrent use;
// one connection's driver owns it.
//
// The datagram header (the transport's, sent in clear) is authenticated as
// additional data, and its sequence number is the nonce input, so a
// datagram opens only under the header and sequence it was sealed with.
// Sequences on the wire are 32 bits; the session extends them to 64 bits
// (as QUIC does with packet numbers), so they never wrap under one key.
type Session struct {
	rekeyAfter uint64

	send struct {
		cur     keyPhase
		count   uint64 // datagrams sealed under cur
		last    uint64 // full sequence of the last datagram sealed
		started bool
	}
	recv struct {
		cur, next, prev keyPhase
		havePrev        bool
		curStart        uint64 // lowest sequence opened under cur
		prevStart       uint64 // lowest sequence opened under prev
		window          replayWindow
	}
	stats SessionStats
	nonce [ivSize]byte // scratch, so the nonce does not escape per datagram
}

func newSession(sendSecret, recvSecret secret, rekeyAfter uint64) *Session {
	if rekeyAfter == 0 {
		rekeyAfter = DefaultRekeyAfter
	}
	s := &Session{rekeyAfter: rekeyAfter}
	s.send.cur = newKeyPhase(sendSecret, 0)
	s.recv.cur = newKeyPhase(recvSecret, 0)
	s.recv.next = s.recv.cur.next()
	return s
}

// Stats returns the session's counters.
func (s *Session) Stats() SessionStats { return s.stats }

// Seal encrypts plaintext as the payload of the datagram with sequence seq
// and header, and appends the flags byte, ciphertext and tag to dst
// (Overhead bytes more than plaintext). The datagram on the wire is header
// followed by the result. seq must follow the previous sealed sequence in
// 32-bit serial order (it may skip, never repeat or go back), else Seal
// returns ErrSequence: a repeated nonce would break GCM. dst must not
// overlap header or plaintext.
func (s *Session) Seal(dst []byte, seq uint32, header, plaintext []byte) ([]byte, error) {
	full := uint64(seq)
	if s.send.started {
		d := seq - uint32(s.send.last)
		if d == 0 || d >= 1<<31 {
			return dst, fmt.Errorf("%w: %d after %d", ErrSequence, seq, uint32(s.send.last))
		}
		full = s.send.last + uint64(d)
	}
	if s.send.count >= s.rekeyAfter {
		s.send.cur = s.send.cur.next()
		s.send.count = 0
		s.stats.KeyUpdatesSent++
	}
	dst = append(dst, s.send.cur.phase)
	dst = s.send.cur.keys.aead.Seal(dst, s.send.cur.keys.nonce(&s.nonce, full), plaintext, header)
	s.send.count++
	s.send.last, s.send.started = full, true
	s.stats.Sealed++
	return dst, nil
}

// Open authenticates and decrypts the payload of a datagram with sequence
// seq and header, appending the plaintext to dst. It returns ErrMalformed,
// ErrReplay (a duplicate or a sequence older than the replay window) or
// ErrAuth (tampered or forged), counting each; a failed Open changes
// nothing else and allocates nothing, so floods of forgeries stay cheap. Key updates by the peer are followed automatically.
func (s *Session) Open(dst []byte, seq uint32, header, sealed []byte) ([]byte, error) {
	r := &s.recv
	if len(sealed) < Overhead || sealed[0]&^knownFlags != 0 {
		s.stats.Malformed++
		return dst, ErrMalformed
	}
	full := s.expand(seq)
	if !r.window.fresh(full) {
		s.stats.Replayed++
		return dst, ErrReplay
	}
	// Choose the keys by the phase bit: the current phase; the previous one
	// for stragglers sealed before the peer's last key update; or the next
	// one, when the peer has just updated.
	phase := sealed[0] & flagKeyPhase
	var k *keyPhase
	switch {
	case phase == r.cur.phase && !(r.havePrev && full < r.prevStart):
		k = &r.cur
	case phase == r.cur.phase: // two phases old: no longer held
		s.stats.Replayed++ // predates the previous key phase
		return dst, ErrReplay
	case r.havePrev && full < r.curStart:
		k = &r.prev
	default:
		k = &r.next
	}
	out, err := k.keys.aead.Open(dst, k.keys.nonce(&s.nonce, full), sealed[1:], header)
	if err != nil {
		s.stats.Tampered++
		return dst, ErrAuth
	}
	r.window.mark(full)
	switch k {
	case &r.next:
		r.prev, r.prevStart, r.havePrev = r.cur, r.curStart, true
		r.cur, r.curStart = r.next, full
		r.next = r.cur.next()
		s.stats.KeyUpdatesReceived++
	case &r.cur:
		r.curStart = min(r.curStart, full)
	}
	s.stats.Opened++
	return out, nil
}

// expand returns the 64-bit sequence closest to the highest one received
// whose low 32 bits are seq (RFC 9000 appendix A.3).
func (s *Session) expand(seq uint32) uint64 {
	w := &s.recv.window
	if !w.any {
		return uint64(seq)
	}
	const win, half = 1 << 32, 1 << 31
	expected := w.top + 1
	c := expected&^(win-1) | uint64(seq)
	switch {
	case c+half <= expected && c < 1<<63-win:
		c += win
	case c > expected+half && c >= win:
		c -= win
	}
	return c
}
