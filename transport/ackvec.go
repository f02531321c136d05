package transport

import "time"

// ackVectorBits is the number of datagrams one ack vector covers.
const ackVectorBits = 64

// recvStatus classifies an arriving datagram sequence.
type recvStatus uint8

const (
	recvNew       recvStatus = iota // not seen before
	recvDuplicate                   // already received
	recvTooOld                      // older than the ack vector reaches
)

// ackVector records which recent datagrams arrived from the peer. It
// produces the ack vector of outgoing headers and filters duplicated
// datagrams.
type ackVector struct {
	latest   uint32
	mask     uint64 // bit N: latest-N received; zero until the first datagram
	latestAt time.Time
}

// status reports whether seq is new, a duplicate or too old to tell.
func (a *ackVector) status(seq uint32) recvStatus {
	if a.mask == 0 {
		return recvNew
	}
	d := seqDiff32(a.latest, seq)
	switch {
	case d < 0:
		return recvNew
	case d >= ackVectorBits:
		return recvTooOld
	case a.mask&(1<<d) != 0:
		return recvDuplicate
	}
	return recvNew
}

// mark records seq as received at now. It reports whether seq extends the
// vector contiguously (is the successor of the previous latest); a gap
// deserves an immediate acknowledgement.
func (a *ackVector) mark(seq uint32, now time.Time) (inOrder bool) {
	if a.mask == 0 {
		a.latest, a.mask, a.latestAt = seq, 1, now
		return true
	}
	back := seqDiff32(a.latest, seq) // how far seq is behind latest
	if back >= 0 {
		if back < ackVectorBits {
			a.mask |= 1 << back
		}
		return false
	}
	ahead := seq - a.latest // in (0, 2^31]
	if ahead >= ackVectorBits {
		a.mask = 0
	} else {
		a.mask <<= ahead
	}
	a.mask |= 1
	a.latest, a.latestAt = seq, now
	return ahead == 1
}
