package netsim

// LinkStats counts the packets of one direction. Packets and Bytes count
// what entered the link; every such packet is then delivered (Delivered,
// which also counts duplicates) or dropped for exactly one cause, except
// the packets still in flight and those discarded by Close.
type LinkStats struct {
	Packets, Bytes            uint64 // offered to the link
	Delivered, DeliveredBytes uint64 // handed on, duplicates included

	Lost         uint64 // dropped by independent loss
	BurstLost    uint64 // dropped by the Gilbert–Elliott model
	QueueDropped uint64 // tail-dropped by the bandwidth queue
	Overflow     uint64 // In only: arrived while the read queue was full
	Failed       uint64 // Out only: the wrapped connection's WriteTo failed

	Duplicated uint64 // extra copies delivered (or scheduled)
	Reordered  uint64 // packets held back by the reorder delay
	Corrupted  uint64 // packets with one bit flipped
}

// Dropped is the total of all drop causes.
func (s LinkStats) Dropped() uint64 {
	return s.Lost + s.BurstLost + s.QueueDropped + s.Overflow + s.Failed
}

// Add returns the field-wise sum of s and o.
func (s LinkStats) Add(o LinkStats) LinkStats {
	return LinkStats{
		Packets: s.Packets + o.Packets, Bytes: s.Bytes + o.Bytes,
		Delivered: s.Delivered + o.Delivered, DeliveredBytes: s.DeliveredBytes + o.DeliveredBytes,
		Lost: s.Lost + o.Lost, BurstLost: s.BurstLost + o.BurstLost,
		QueueDropped: s.QueueDropped + o.QueueDropped, Overflow: s.Overflow + o.Overflow,
		Failed:     s.Failed + o.Failed,
		Duplicated: s.Duplicated + o.Duplicated, Reordered: s.Reordered + o.Reordered,
		Corrupted: s.Corrupted + o.Corrupted,
	}
}

// Stats holds the counters of both directions of a PacketConn.
type Stats struct {
	Out, In LinkStats
}
