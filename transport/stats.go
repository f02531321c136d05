package transport

import "time"

// counters are a session's running totals.
type counters struct {
	packetsSent, packetsRecv uint64
	bytesSent, bytesRecv     uint64
	acked, lost, rtos        uint64
	asked                    uint64 // datagrams sent that ask for an acknowledgement
	heard                    uint64 // times the peer's latest received datagram advanced
	duplicates, malformed    uint64
	refused, protocolErrors  uint64
	redundancyBytes          uint64
	recovered                uint64
}

// Stats is a snapshot of a connection's statistics.
type Stats struct {
	State State
	// RTT is the smoothed round-trip time, RTTVar its mean deviation,
	// MinRTT the smallest sample; all are the initial guess until the
	// first acknowledgement.
	RTT, RTTVar, MinRTT time.Duration
	// LossPercent is the recent datagram loss rate (about the last 64
	// datagrams), in percent.
	LossPercent float64

	BytesSent, BytesReceived     uint64 // datagram bytes (UDP payload)
	PacketsSent, PacketsReceived uint64 // datagrams
	PacketsLost                  uint64 // datagrams declared lost
	Timeouts                     uint64 // retransmission timeouts
	Duplicates                   uint64 // duplicated datagrams dropped
	Malformed                    uint64 // datagrams that did not parse or broke a channel's rules
	Refused                      uint64 // datagrams left unacknowledged for lack of memory
	// ProtocolErrors counts what only a faulty or hostile peer sends,
	// although it parses: a frame that breaks its channel's configuration
	// (unknown channel, wrong reliability, a compressed flag on a channel
	// that never compresses, a fragment on one that does not fragment, or
	// cut inconsistently with its count and total), whose datagram is
	// dropped (and counted in Malformed); a fragment contradicting its
	// group, which drops the group; and a compressed message that declares
	// a size past its channel's maximum or 256 times its payload,
	// or does not decode to that size, which is dropped. The last two count
	// in the channel's Errors too.
	ProtocolErrors uint64

	// EstimatedBandwidth is the congestion controller's estimate of the
	// path's bottleneck bandwidth, in bytes per second: 0 until measured,
	// and always with CongestionFixedWindow.
	EstimatedBandwidth float64
	// CongestionWindow is the bytes of datagrams carrying non-critical
	// data the controller lets be in flight.
	CongestionWindow int
	// RedundancyBytes is the bytes sent as parity for small urgent
	// messages: parity frames, and whole datagrams that carried nothing
	// else.
	RedundancyBytes uint64
	// Recovered counts messages rebuilt from parity, without waiting for
	// their retransmission.
	Recovered uint64

	// PendingReliable is the number of reliable messages queued or sent
	// but not yet acknowledged.
	PendingReliable int
	// InFlightBytes is the size of unacknowledged windowed datagrams.
	InFlightBytes int

	Channels []ChannelStats
}

// ChannelStats are the counters of one channel.
type ChannelStats struct {
	ID   ChannelID
	Name string

	MessagesSent, BytesSent         uint64 // accepted by Send
	MessagesReceived, BytesReceived uint64 // delivered to the application
	Retransmits                     uint64 // frames sent again
	Dropped                         uint64 // unreliable messages dropped from a full queue
	Duplicates                      uint64 // frames received again or superseded
	Errors                          uint64 // bad fragments or compressed data

	Queued  int // messages waiting for their first transmission
	Unacked int // reliable messages not yet acknowledged
}

// Stats returns a snapshot of the session's statistics.
func (s *Session) Stats() Stats {
	st := Stats{
		State:           s.state,
		RTT:             s.rtt.srtt(),
		RTTVar:          s.rtt.variance,
		MinRTT:          s.rtt.min,
		LossPercent:     100 * s.lossRate,
		BytesSent:       s.stats.bytesSent,
		BytesReceived:   s.stats.bytesRecv,
		PacketsSent:     s.stats.packetsSent,
		PacketsReceived: s.stats.packetsRecv,
		PacketsLost:     s.stats.lost,
		Timeouts:        s.stats.rtos,
		Duplicates:      s.stats.duplicates,
		Malformed:       s.stats.malformed,
		Refused:         s.stats.refused,
		ProtocolErrors:  s.stats.protocolErrors,
		InFlightBytes:   s.sent.inFlight,

		EstimatedBandwidth: s.cc.bandwidth(),
		CongestionWindow:   min(s.cc.window(), s.set.maxInFlight),
		RedundancyBytes:    s.stats.redundancyBytes,
		Recovered:          s.stats.recovered,
	}
	if !s.rtt.hasSample {
		st.RTTVar, st.MinRTT = initialRTT/2, initialRTT
	}
	for i, c := range s.send {
		if i == 0 {
			continue
		}
		r := s.recv[i].stats
		cs := c.stats
		cs.ID, cs.Name = c.cfg.ID, c.cfg.Name
		cs.MessagesReceived, cs.BytesReceived = r.MessagesReceived, r.BytesReceived
		cs.Duplicates, cs.Errors = r.Duplicates, r.Errors
		cs.Queued, cs.Unacked = c.queue.len(), c.unacked.len()
		st.PendingReliable += c.unacked.len()
		st.Channels = append(st.Channels, cs)
	}
	return st
}
