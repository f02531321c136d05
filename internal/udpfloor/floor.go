package udpfloor

import (
	"errors"
	"time"
)

// ErrNoDatagrams reports a measurement in which nothing arrived.
var ErrNoDatagrams = errors.New("udpfloor: no datagram arrived")

// Batch is the datagrams per system call on either side.
const Batch = 64

// Floor is the measured CPU cost of one datagram of Size bytes.
type Floor struct {
	Size     int     `json:"size"`
	SendUs   float64 `json:"send_us"` // sender CPU µs per datagram sent (sendmmsg)
	RecvUs   float64 `json:"recv_us"` // receiver CPU µs per datagram received (recvmmsg)
	Sent     int     `json:"sent"`
	Received int     `json:"received"`
}

// Mix is the floor per datagram of a datapath that receives in datagrams
// of inSize bytes and sends out datagrams of outSize bytes: the weighted
// mean of the receive floor at inSize and the send floor at outSize.
func Mix(in, out uint64, recv, send Floor) float64 {
	if in+out == 0 {
		return 0
	}
	return (float64(in)*recv.RecvUs + float64(out)*send.SendUs) / float64(in+out)
}

// Measure sends count datagrams of size bytes from one loopback socket to
// another in batches, keeping at most window datagrams in flight so the
// receiver's buffer never overflows, and returns the CPU per datagram of
// each side. It gives up after timeout.
func Measure(size, count int, timeout time.Duration) (Floor, error) {
	return measure(size, count, timeout)
}
