package netsim

import (
	"container/heap"
	"net"
	"time"
)

// datagram is one packet with its peer address (destination when
// outgoing, source when incoming).
type datagram struct {
	data []byte
	addr net.Addr
}

// timed is a datagram waiting for its delivery time. seq breaks ties so
// that packets due at the same instant keep their sending order.
type timed struct {
	at  time.Time
	seq uint64
	datagram
}

// timeline is a min-heap of packets ordered by delivery time.
type timeline []timed

func (t timeline) Len() int { return len(t) }
func (t timeline) Less(i, j int) bool {
	if !t[i].at.Equal(t[j].at) {
		return t[i].at.Before(t[j].at)
	}
	return t[i].seq < t[j].seq
}
func (t timeline) Swap(i, j int) { t[i], t[j] = t[j], t[i] }
func (t *timeline) Push(x any)   { *t = append(*t, x.(timed)) }
func (t *timeline) Pop() any {
	old := *t
	x := old[len(old)-1]
	old[len(old)-1] = timed{} // drop references for the collector
	*t = old[:len(old)-1]
	return x
}

// push adds a packet and reports whether it became the earliest.
func (t *timeline) push(x timed) bool {
	heap.Push(t, x)
	return (*t)[0].seq == x.seq
}

// popDue removes the packets due at or before now, in delivery order,
// appending them to buf.
func (t *timeline) popDue(now time.Time, buf []datagram) []datagram {
	for t.Len() > 0 && !(*t)[0].at.After(now) {
		buf = append(buf, heap.Pop(t).(timed).datagram)
	}
	return buf
}

// next returns the earliest delivery time, if any packet waits.
func (t timeline) next() (time.Time, bool) {
	if len(t) == 0 {
		return time.Time{}, false
	}
	return t[0].at, true
}
