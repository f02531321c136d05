package transport

import (
	"errors"
	"fmt"
	"time"
)

// HandleDatagram processes a datagram received from the peer. Malformed
// datagrams, and datagrams of another connection, are counted and ignored;
// they never change the session. b is not retained.
func (s *Session) HandleDatagram(b []byte, now time.Time) {
	if s.state == StateDisconnected {
		return
	}
	h, rest, err := parseHeader(b)
	if err != nil || h.connID != s.connID {
		s.stats.malformed++
		return
	}
	// Parse and check every frame before acting on any.
	frames := s.scratch[:0]
	for len(rest) > 0 {
		f, r, err := parseFrame(rest)
		if err != nil {
			s.stats.malformed++
			return
		}
		if !s.validFrame(&f) {
			s.stats.malformed++
			s.stats.protocolErrors++
			return
		}
		frames = append(frames, f)
		rest = r
	}
	s.scratch = frames[:0]
	s.stats.packetsRecv++
	s.stats.bytesRecv += uint64(len(b))
	s.lastRecv = now
	if !s.reliableLink {
		s.onAck(h, now)
	}
	switch s.acks.status(h.seq) {
	case recvDuplicate, recvTooOld:
		s.stats.duplicates++
		return
	}
	// A datagram is acknowledged only if all of it can be kept: when the
	// application stops reading, or reassembly memory is short, it is left
	// for the peer to retransmit.
	if s.inboxBytes >= s.set.maxRecvBuffer || !s.asm.room(s.reservation(frames)) {
		s.stats.refused++
		if s.reliableLink && carriesReliable(frames) {
			// Nothing would ever retransmit it.
			s.Abort("receive buffer full", fmt.Errorf("%w: receive buffer full on a reliable link", ErrMemoryBudget))
		}
		return
	}
	inOrder := s.acks.mark(h.seq, now)
	if !s.reliableLink && elicits(frames, h.flags) {
		s.ackEliciting++
		s.elicitedAt = now
		repaired := s.repaired(frames, now)
		switch {
		case !inOrder || s.acks.holeAt(packetThreshold) || s.ackEliciting >= ackEvery && !repaired || s.ackEliciting >= repairedAckEvery:
			s.scheduleAck(now)
		case repaired:
			s.scheduleAck(now.Add(repairedAckDelay * s.set.ackDelay))
		case !s.ackPending:
			s.scheduleAck(now.Add(s.set.ackDelay))
		}
	}
	for i := range frames {
		s.handleFrame(&frames[i], now)
	}
	s.progressClose()
}

// elicits reports whether a datagram asks for a prompt acknowledgement:
// it carries a reliable frame or a ping. Unreliable frames alone do not.
func elicits(frames []frame, flags uint8) bool {
	return flags&flagPing != 0 || carriesReliable(frames)
}

// carriesReliable reports whether any of the frames is reliable.
func carriesReliable(frames []frame) bool {
	for i := range frames {
		if frames[i].flags&frameReliable != 0 {
			return true
		}
	}
	return false
}

func (s *Session) scheduleAck(at time.Time) {
	if !s.ackPending || at.Before(s.ackDeadline) {
		s.ackDeadline = at
	}
	s.ackPending = true
}

// validFrame checks a frame against the channel configuration: a known
// channel, its reliability, compression only where the channel may
// compress, fragments only where it fragments, within its size and cut
// consistently (see fragLen).
func (s *Session) validFrame(f *frame) bool {
	cs := s.set.channel(f.channel)
	if cs == nil {
		return false
	}
	r := cs.Reliability
	if f.flags&frameParity != 0 {
		_, _, ok := parseRepair(f.payload, cs.maxSize)
		return ok && r.reliable()
	}
	if (f.flags&frameReliable != 0) != r.reliable() || (f.flags&frameOrdered != 0) != r.sequenced() {
		return false
	}
	if f.flags&frameCompressed != 0 && cs.Compression == CompressNever {
		return false
	}
	if f.flags&frameFragment != 0 {
		return cs.AllowFragmentation && int(f.total) <= cs.maxSize && fragLen(f) > 0
	}
	// A whole message is within the channel's size too (a compressed one
	// is bounded when it is decompressed).
	return f.flags&frameCompressed != 0 || len(f.payload) <= cs.maxSize
}

// reservation returns the reassembly memory the fragments of a datagram
// would newly reserve.
func (s *Session) reservation(frames []frame) int {
	n := 0
	for i := range frames {
		f := &frames[i]
		if f.flags&frameFragment == 0 || !s.recv[s.set.byID[f.channel]].fresh(f.seq) {
			continue
		}
		first := true
		for j := range i {
			if frames[j].channel == f.channel && frames[j].seq == f.seq && frames[j].flags&frameFragment != 0 {
				first = false
				break
			}
		}
		if first {
			n += s.asm.needs(f)
		}
	}
	return n
}

// handleFrame delivers what a frame completes.
func (s *Session) handleFrame(f *frame, now time.Time) {
	rc := s.recv[s.set.byID[f.channel]]
	if f.flags&frameParity != 0 {
		s.onParity(rc, f, now)
		return
	}
	if !rc.fresh(f.seq) {
		rc.stats.Duplicates++
		if f.channel == ChannelControl && s.halfOpen() {
			// The client retransmitted its hello: our reply was lost.
			s.send[0].resend()
		}
		return
	}
	var data []byte
	if f.flags&frameFragment != 0 {
		msg, err := s.asm.add(f, rc.cfg.Reliability.reliable(), now)
		if err != nil {
			rc.stats.Errors++
			s.stats.protocolErrors++
			return
		}
		if msg == nil {
			return
		}
		data = msg
	} else {
		data = append(make([]byte, 0, len(f.payload)), f.payload...)
	}
	if f.flags&frameCompressed != 0 {
		data = s.decompress(rc, data)
	} else if rc.par != nil && f.flags&frameFragment == 0 {
		rc.par.remember(f.seq, data)
	}
	rc.accept(f.seq, data, func(d []byte) { s.deliver(rc, d) })
	if rc.par != nil && !rc.par.busy && rc.par.covers(f.seq) {
		s.rebuild(rc, now)
	}
}

// decompress returns the original payload, or nil if it is corrupt.
func (s *Session) decompress(rc *recvChannel, data []byte) []byte {
	cdc, err := s.codec()
	if err == nil {
		data, err = cdc.decompress(data, rc.cfg.maxSize)
	}
	if err != nil {
		rc.stats.Errors++
		if errors.Is(err, errDecompress) {
			s.stats.protocolErrors++
		}
		return nil
	}
	return data
}

// deliver hands a complete message to the application, or to the control
// handler for channel 0. A nil message (corrupt) only fills its place.
func (s *Session) deliver(rc *recvChannel, data []byte) {
	if data == nil {
		return
	}
	rc.stats.MessagesReceived++
	rc.stats.BytesReceived += uint64(len(data))
	if rc.cfg.ID == ChannelControl {
		s.onControl(data)
		return
	}
	s.inbox.push(Message{Channel: rc.cfg.ID, Data: data})
	s.inboxBytes += len(data)
}

// onControl handles a control message.
func (s *Session) onControl(p []byte) {
	if len(p) == 0 {
		return
	}
	switch {
	case p[0] == ctlDisconnect:
		s.finalAck = !s.reliableLink // over a reliable link nothing awaits an acknowledgement
		s.scheduleAck(s.lastRecv)
		s.end(fmt.Errorf("%w: %s", ErrPeerClosed, sanitize(p[1:])))
	case p[0] == ctlHello && !s.client && s.state == StateConnecting && !s.helloSeen:
		s.helloSeen = true
		reply, err := s.hs.onHello(p)
		s.queueControl(reply)
		if err != nil {
			// Deliver the rejection, then end.
			s.err = err
			s.state = StateDisconnecting
			s.byeQueued = true
			s.deadline = s.lastRecv.Add(s.set.closeTimeout)
		}
	case p[0] == ctlReply && s.client && s.state == StateConnecting:
		ready, err := s.hs.onReply(p)
		if err != nil {
			s.finalAck = true
			s.scheduleAck(s.lastRecv)
			s.end(err)
			return
		}
		s.queueControl(ready)
		s.state = StateConnected
	case p[0] == ctlReady && !s.client && s.state == StateConnecting && s.helloSeen:
		if err := s.hs.onReady(p); err != nil {
			s.end(err)
			return
		}
		s.state = StateConnected
	}
}
