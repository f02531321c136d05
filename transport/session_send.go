package transport

import "time"

// AppendDatagram appends the next datagram to send to dst. It reports false,
// leaving dst unchanged, when nothing is due now: no sendable data (or the
// pacer or in-flight window holds it back), no acknowledgement due, no ping.
func (s *Session) AppendDatagram(dst []byte, now time.Time) ([]byte, bool) {
	if s.state == StateDisconnected && !s.finalAck {
		return dst, false
	}
	live := s.state != StateDisconnected
	fresh := s.set.flushInterval == 0 || s.flushReq
	start := len(dst)
	h := header{connID: s.connID, seq: s.nextSeq}
	if s.carriesAck(now) {
		h.flags |= flagAck
		h.ackLatest, h.ackMask, h.delay = s.acks.latest, s.acks.mask, encodeDelay(now.Sub(s.acks.latestAt))
	}
	dst = appendHeader(dst, h)
	s.dgGen++
	refs := s.sent.frameList()
	nframes, last, windowed, lowest := 0, 0, false, Critical
	for live {
		c, r, ok := s.pick(s.set.mtu-(len(dst)-start), fresh, now)
		if !ok {
			break
		}
		f := r.msg.frame(c.cfg.ID, r.idx)
		last = len(dst)
		dst = appendFrame(dst, &f)
		first := r.msg.state[r.idx] == fragUnsent
		c.take(r, s.dgGen, !s.reliableLink)
		if first && c.cfg.protected() && !s.reliableLink {
			s.protect(c, r.msg, now)
		}
		s.pacer.spendFrame(c.cfg.Priority, f.size())
		nframes++
		switch {
		case c.reliable() && s.reliableLink:
			c.onAcked(r) // delivered once written
		case c.reliable():
			refs = append(refs, r)
		}
		if c.cfg.Priority != Critical {
			windowed = true
		}
		lowest = max(lowest, c.cfg.Priority)
	}
	parity, parityBytes := 0, 0
	if live && !s.reliableLink {
		dst, parity, parityBytes = s.appendParity(dst, start, &last, nframes > 0, now)
		nframes += parity
	}
	if nframes == 0 && !(live && s.pingDue) && !(s.ackPending && !now.Before(s.ackDeadline)) {
		return dst[:start], false
	}
	if live {
		var n int
		dst, refs, n = s.appendRepeats(dst, start, refs, &last)
		nframes += n
	}
	if nframes > 0 {
		dst = elideLength(dst, last)
	}
	// A datagram with reliable frames or a ping is acknowledged promptly.
	// One carrying only unreliable frames is not (it needs no
	// retransmission), except for one every half keepalive interval,
	// pinged, so that the RTT and loss figures stay current on unreliable
	// streams and the receiver's acknowledgements stand in for its own
	// keepalives. Repairs and reports alone are no such stream: a receiver
	// reporting rebuilt messages would otherwise make its sender carry
	// acknowledgement sections for an RTT every half interval.
	probe := !s.reliableLink && nframes > parity && len(refs) == 0 && !now.Before(s.sent.lastEliciting.Add(s.set.keepAlive/2))
	ping := live && ((nframes == 0 && s.pingDue) || probe)
	if ping {
		dst[start+1] |= flagPing
	}
	size := len(dst) - start
	if parity > 0 && parity == nframes {
		parityBytes = size // the whole datagram is for parity
	}
	s.stats.redundancyBytes += uint64(parityBytes)
	eliciting := len(refs) > 0 || ping
	if eliciting {
		s.stats.asked++
	}
	if !s.reliableLink {
		d := sentDatagram{seq: h.seq, at: now, size: size, eliciting: eliciting,
			windowed: windowed, done: !eliciting, frames: refs}
		if eliciting {
			if !s.governedWaiting(fresh, now) {
				s.dlv.markAppLimited(s.sent.inFlight + size)
			}
			d.deliveryStamp = s.dlv.stamp(now, s.sent.outstanding == 0)
			s.dlv.spend(size)
		}
		s.sent.push(d)
		s.sent.trim()
	}
	s.nextSeq++
	s.lastSent = now
	s.pingDue = false
	s.ackPending, s.ackEliciting, s.finalAck = false, 0, false
	s.pacer.spendDatagram(size)
	s.pacer.spendFrame(lowest, h.size()) // the header counts against the lowest class it carried
	s.stats.packetsSent++
	s.stats.bytesSent += uint64(size)
	if s.flushReq && s.userQueuesEmpty() {
		s.flushReq = false
	}
	switch {
	case s.aborting:
		s.end(s.err) // the disconnect is on its way
	case s.reliableLink:
		s.progressClose() // what was written is delivered
	}
	return dst, true
}

// pick chooses the next frame that fits in room bytes: levels in strict
// priority order, deficit round robin on weights within a level, subject to
// the pacer and the in-flight window.
func (s *Session) pick(room int, fresh bool, now time.Time) (*sendChannel, fragRef, bool) {
	userOK := s.state == StateConnected || s.state == StateDisconnecting
	for li := range numPriorities {
		chans := s.levels[li]
		if len(chans) == 0 {
			continue
		}
		pr := Priority(li + 1)
		if pr != Critical && s.sent.inFlight >= s.set.maxInFlight {
			break
		}
		if !s.aborting && !s.pacer.allows(pr, now) {
			continue
		}
		for range 2*len(chans) + 1 {
			c := chans[s.cursor[li]]
			r, ok := c.peek(c.cfg.ID == ChannelControl || (userOK && fresh), now)
			ok = ok && !s.congestionHolds(c, now)
			if ok && !s.turn[li] {
				c.deficit += c.cfg.Weight * s.set.mtu
				s.turn[li] = true
			}
			if ok && c.skipGen != s.dgGen {
				size := r.msg.fragWireSize(r.idx)
				if size <= room && c.deficit >= size {
					c.deficit -= size
					return c, r, true
				}
				if size > room {
					c.skipGen = s.dgGen
				}
			}
			if !ok {
				c.deficit = 0
			}
			s.cursor[li] = (s.cursor[li] + 1) % len(chans)
			s.turn[li] = false
		}
	}
	return nil, fragRef{}, false
}

// sendReadyAt returns when queued data can next be sent, or zero if
// nothing is sendable (or it waits for acknowledgements).
func (s *Session) sendReadyAt(now time.Time) time.Time {
	if s.state == StateDisconnected {
		return time.Time{}
	}
	userOK := s.state == StateConnected || s.state == StateDisconnecting
	fresh := s.set.flushInterval == 0 || s.flushReq
	var t time.Time
	for _, c := range s.send {
		if c.par.since > 0 {
			t = earliest(t, later(now, c.par.due.Add(s.repairWait(c))))
		}
		if at := c.heldUntil(); now.Before(at) {
			t = earliest(t, at)
		}
	}
	for li := range numPriorities {
		pr := Priority(li + 1)
		if pr != Critical && s.sent.inFlight >= s.set.maxInFlight {
			break
		}
		for _, c := range s.levels[li] {
			if _, ok := c.peek(c.cfg.ID == ChannelControl || (userOK && fresh), now); !ok {
				continue
			}
			at := s.pacer.readyAt(pr, now)
			if s.governed(c) {
				if s.sent.inFlight >= s.cc.window() {
					continue // waits for an acknowledgement
				}
				at = later(at, s.dlv.paceReadyAt(now))
			}
			t = earliest(t, at)
		}
	}
	return t
}

func (s *Session) userQueuesEmpty() bool {
	for _, c := range s.send[1:] {
		if c.queue.len() > 0 {
			return false
		}
	}
	return true
}

// Deadline returns when the session next needs HandleTimeout or
// AppendDatagram, given the current time; zero means not until a datagram
// arrives or the application acts.
func (s *Session) Deadline(now time.Time) time.Time {
	if s.state == StateDisconnected {
		if s.finalAck {
			return now
		}
		return time.Time{}
	}
	if s.aborting {
		return now
	}
	t := s.lastRecv.Add(s.set.idleTimeout)
	if s.state != StateConnected {
		t = earliest(t, s.deadline)
	}
	if s.ackPending {
		t = earliest(t, s.ackDeadline)
	}
	t = earliest(t, s.sent.lossTime)
	t = earliest(t, s.rtoDeadline())
	if s.state == StateConnected {
		t = earliest(t, s.keepAliveAt())
	}
	if s.pingDue {
		t = earliest(t, now)
	}
	t = earliest(t, s.asm.nextExpiry(s.set.fragTimeout))
	if s.set.flushInterval > 0 && !s.flushReq && !s.userQueuesEmpty() {
		t = earliest(t, s.nextTick)
	}
	return earliest(t, s.sendReadyAt(now))
}

// HandleTimeout runs the timers that are due at now: idle, handshake and
// close timeouts, time-threshold loss detection, the retransmission timeout,
// keepalives, fragment expiry and the flush tick.
func (s *Session) HandleTimeout(now time.Time) {
	if s.state == StateDisconnected || s.aborting {
		return
	}
	if !now.Before(s.lastRecv.Add(s.set.idleTimeout)) {
		s.end(ErrTimeout)
		return
	}
	if s.state != StateConnected && !now.Before(s.deadline) {
		s.end(ErrTimeout)
		return
	}
	if !s.sent.lossTime.IsZero() && !now.Before(s.sent.lossTime) {
		s.detectLoss(now)
	}
	if t := s.rtoDeadline(); !t.IsZero() && !now.Before(t) {
		s.onRTO()
	}
	if s.state == StateConnected && !now.Before(s.keepAliveAt()) {
		s.pingDue = true
	}
	s.asm.expire(now, s.set.fragTimeout)
	if s.set.flushInterval > 0 && !now.Before(s.nextTick) {
		s.flushReq = !s.userQueuesEmpty()
		s.nextTick = nextGrid(s.nextTick, now, s.set.flushInterval)
	}
	s.progressClose()
}

// carriesAck reports whether the next datagram carries the acknowledgement
// section: while an acknowledgement is owed, and for one RTT after the
// last ack-eliciting datagram arrived (so a lost acknowledgement is
// repeated by the next datagrams). A side that only receives
// acknowledgements never sends any, which saves 14 bytes a datagram on
// one-way traffic.
func (s *Session) carriesAck(now time.Time) bool {
	return !s.reliableLink && s.acks.mask != 0 && (s.ackPending || now.Before(s.elicitedAt.Add(s.rtt.srtt())))
}

// appendRepeats appends, while they fit, copies of retransmitted fragments
// (see sendChannel.repeat) that went out in an earlier datagram, so that
// losing the retransmission too rarely costs another round trip.
func (s *Session) appendRepeats(dst []byte, start int, refs []fragRef, last *int) ([]byte, []fragRef, int) {
	n := 0
	for _, c := range s.send {
		for c.repeat.len() > 0 {
			r := c.repeat.front()
			if r.gen == s.dgGen {
				break // retransmitted in this very datagram
			}
			c.repeat.pop()
			m := r.ref.msg
			if m.dropped || m.state[r.ref.idx] != fragSent {
				continue
			}
			if m.fragWireSize(r.ref.idx) > s.set.mtu-(len(dst)-start) {
				continue
			}
			f := m.frame(c.cfg.ID, r.ref.idx)
			*last = len(dst)
			dst = appendFrame(dst, &f)
			refs = append(refs, r.ref)
			s.pacer.spendFrame(c.cfg.Priority, f.size())
			c.stats.Retransmits++
			n++
			if r.left > 1 {
				c.repeat.push(repeatRef{ref: r.ref, gen: s.dgGen, left: r.left - 1})
			}
		}
	}
	return dst, refs, n
}

// keepAliveAt returns when a keepalive ping is due: after KeepAliveInterval
// of silence. The client keeps an idle connection alive and the server
// answers; the server pings on its own only when it has heard nothing
// ack-eliciting (no ping, no reliable data) for one and a half intervals,
// so the two sides do not both ping. On a reliable link nothing answers a
// ping (there are no acknowledgements), so each side keeps its own
// direction alive.
func (s *Session) keepAliveAt() time.Time {
	t := s.lastSent.Add(s.set.keepAlive)
	if !s.client && !s.reliableLink {
		t = later(t, s.elicitedAt.Add(s.set.keepAlive*3/2))
	}
	return t
}
