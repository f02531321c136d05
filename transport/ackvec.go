package transport

import "time"

// ackVectorBits is the number of datagrams one ack vector covers.
const ackVectorBits = 64

// ackEvery is how many ack-eliciting datagrams may arrive before an
// acknowledgement is sent at once, rather than after the ack delay. Gaps
// are acknowledged at once anyway (see Session.HandleDatagram), so this
// only bounds how much an acknowledgement covers; eight keeps one-way
// streams at one small acknowledgement per eight datagrams or per ack
// delay while an ack vector still covers every datagram eight times.
const ackEvery = 8

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

// holeAt reports whether datagram latest-n is missing while an older one
// arrived: the moment a gap reaches the sender's packet threshold, when an
// immediate acknowledgement lets the sender declare the loss.
func (a *ackVector) holeAt(n uint32) bool {
	return a.mask&(1<<n) == 0 && a.mask>>n != 0
}
