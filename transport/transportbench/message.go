package transportbench

import (
	"encoding/binary"
	"time"
)

// header is the start of every workload message: the series it belongs
// to (a lane and a phase, see series), the sending connection, a sequence
// number and the send time in nanoseconds since the run's epoch (sender
// and receiver share one process and one clock).
type header struct {
	series series
	conn   uint16
	seq    uint32
	sent   time.Duration
}

const headerSize = 2 + 2 + 4 + 8

func (h header) put(b []byte) {
	b[0], b[1] = byte(h.series.lane), h.series.phase
	binary.BigEndian.PutUint16(b[2:], h.conn)
	binary.BigEndian.PutUint32(b[4:], h.seq)
	binary.BigEndian.PutUint64(b[8:], uint64(h.sent))
}

func parseHeader(b []byte) (header, bool) {
	if len(b) < headerSize || Lane(b[0]) >= NumLanes {
		return header{}, false
	}
	return header{
		series: series{lane: Lane(b[0]), phase: b[1]},
		conn:   binary.BigEndian.Uint16(b[2:]),
		seq:    binary.BigEndian.Uint32(b[4:]),
		sent:   time.Duration(binary.BigEndian.Uint64(b[8:])),
	}, true
}

// series is a set of messages measured together: a lane, and a phase
// number for workloads that measure one lane under two conditions.
type series struct {
	lane  Lane
	phase uint8
}
