package transport

import (
	"errors"
	"time"
	"unsafe"

	"github.com/tickwire/tickwire/secure"
)

// maxUnreliableGroups bounds the partly received messages of one unreliable
// channel; a new one evicts the oldest.
const maxUnreliableGroups = 4

// minFragPayload is the smallest payload of a fragment other than the
// last: what a sender with the smallest MTU and encryption puts in one.
// A fragment group may therefore declare at most one fragment per
// minFragPayload bytes of its total.
const minFragPayload = minMTU - secure.Overhead - headerLen - frameHeaderLen - fragHeaderLen

// maxFragments is the most fragments a message may have.
const maxFragments = 0xFFFF

// mapSlotBytes is what a group's entry in the assembler's map costs
// (key, pointer and control byte, at the map's load factor), rounded up.
const mapSlotBytes = 24

// groupOverhead is the fixed memory of one fragment group.
const groupOverhead = int(unsafe.Sizeof(fragGroup{})) + mapSlotBytes

var errFragment = errors.New("transport: inconsistent fragment")

type fragKey struct {
	ch  ChannelID
	seq uint16
}

// fragGroup is a partly received message. Its buffers grow with what
// arrives, never ahead of it: data holds the fragments' payloads in
// arrival order, order their indexes, seen a bit per received index.
type fragGroup struct {
	total    uint32
	count    uint16
	fragLen  int // payload of every fragment but the last
	data     []byte
	order    []uint16
	seen     []uint64
	cost     int // reserved: the most the group can come to hold
	held     int // what its buffers hold now
	started  time.Time
	last     time.Time
	reliable bool
}

// assembler reassembles fragmented messages. A group reserves, when it
// starts, the most it can come to hold (groupCost of its declared total
// and count) and the reservations never exceed the limit, so a started
// group can always complete; but it allocates only as fragments arrive,
// and memory reports what its buffers really hold.
type assembler struct {
	groups   map[fragKey]*fragGroup
	reserved int // sum of the groups' costs
	held     int // sum of the groups' held bytes
	limit    int
}

// fragLen returns the payload size of every fragment but the last of the
// message f belongs to, as f's size, index, count and declared total
// imply it, or 0 if they are inconsistent. A sender cuts a message of
// total bytes into count fragments of L bytes but the last, which carries
// the rest (1 to L bytes), so count = ⌈total/L⌉, with L at least
// minFragPayload. This check needs no state: every fragment must pass it.
func fragLen(f *frame) int {
	n, count, total := int64(len(f.payload)), int64(f.count), int64(f.total)
	if count < 2 || int64(f.index) >= count || n == 0 {
		return 0 // a message that fits one fragment is not fragmented
	}
	l := n
	if int64(f.index) == count-1 {
		rest := total - n
		if rest <= 0 || rest%(count-1) != 0 {
			return 0
		}
		l = rest / (count - 1)
		if n > l {
			return 0
		}
	} else if (count-1)*l >= total || count*l < total {
		return 0
	}
	if l < minFragPayload {
		return 0
	}
	return int(l)
}

// groupCost is the most a group of count fragments and total bytes can
// hold: its payload, two bytes of arrival order and one bit per fragment,
// and the fixed overhead.
func groupCost(total, count int) int {
	return total + 2*count + 8*((count+63)/64) + groupOverhead
}

// maxGroupCost is the cost of the largest group a channel of maxSize bytes
// can be sent: the most fragments its total allows.
// ReassemblyCost is what a partly received message of maxSize bytes may
// reserve against Config.MaxReassemblyBytes: the least MaxReassemblyBytes
// that lets such a message be reassembled.
func ReassemblyCost(maxSize int) int {
	count := min(maxFragments, (maxSize+minFragPayload-1)/minFragPayload)
	return groupCost(maxSize, count)
}

// needs returns the bytes a fragment would newly reserve: its group's cost
// if it starts a group, else 0.
func (a *assembler) needs(f *frame) int {
	if _, ok := a.groups[fragKey{f.channel, f.seq}]; ok {
		return 0
	}
	return groupCost(int(f.total), int(f.count))
}

// memory returns the bytes the assembler's buffers hold.
func (a *assembler) memory() int { return a.held }

// room reports whether n more bytes can be reserved.
func (a *assembler) room(n int) bool { return a.reserved+n <= a.limit }

// add stores a fragment. It returns the message when the fragment completes
// it. A fragment that contradicts its group drops the group.
func (a *assembler) add(f *frame, reliable bool, now time.Time) ([]byte, error) {
	l := fragLen(f)
	if l == 0 {
		return nil, errFragment
	}
	key := fragKey{f.channel, f.seq}
	g, ok := a.groups[key]
	if !ok {
		if !reliable {
			a.evictUnreliable(f.channel)
		}
		cost := groupCost(int(f.total), int(f.count))
		if !a.room(cost) {
			return nil, errFragment
		}
		if a.groups == nil {
			a.groups = make(map[fragKey]*fragGroup)
		}
		g = &fragGroup{count: f.count, total: f.total, fragLen: l, cost: cost, started: now, reliable: reliable}
		a.groups[key] = g
		a.reserved += cost
	}
	if g.count != f.count || g.total != f.total || g.fragLen != l {
		a.drop(key)
		return nil, errFragment
	}
	word, bit := int(f.index)/64, uint64(1)<<(f.index%64)
	if word < len(g.seen) && g.seen[word]&bit != 0 {
		return nil, nil // duplicate
	}
	a.store(g, f, word, bit)
	g.last = now
	if len(g.order) < int(g.count) {
		return nil, nil
	}
	a.drop(key)
	return g.message(), nil
}

// store keeps the payload of fragment f, growing g's buffers within its
// cost, and updates the accounting.
func (a *assembler) store(g *fragGroup, f *frame, word int, bit uint64) {
	count := int(g.count)
	if word >= len(g.seen) {
		g.seen = grow(g.seen, word+1-len(g.seen), (count+63)/64)[:word+1]
	}
	g.seen[word] |= bit
	g.order = append(grow(g.order, 1, count), f.index)
	g.data = append(grow(g.data, len(f.payload), int(g.total)), f.payload...)
	held := cap(g.data) + 2*cap(g.order) + 8*cap(g.seen) + groupOverhead
	a.held += held - g.held
	g.held = held
}

// grow returns s with room for n more elements, at most limit in all. It
// allocates exactly the capacity it reports (doubling, capped at limit),
// so capacities stay within what the group reserved.
func grow[T any](s []T, n, limit int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	t := make([]T, len(s), min(max(len(s)+n, 2*cap(s)), limit))
	copy(t, s)
	return t
}

// message assembles a complete group. Fragments that arrived in order are
// the message already.
func (g *fragGroup) message() []byte {
	inOrder := true
	for i, idx := range g.order {
		if int(idx) != i {
			inOrder = false
			break
		}
	}
	if inOrder {
		return g.data
	}
	msg := make([]byte, g.total)
	lastLen := int(g.total) - (int(g.count)-1)*g.fragLen
	off := 0
	for _, idx := range g.order {
		n := g.fragLen
		if int(idx) == int(g.count)-1 {
			n = lastLen
		}
		copy(msg[int(idx)*g.fragLen:], g.data[off:off+n])
		off += n
	}
	return msg
}

func (a *assembler) drop(key fragKey) {
	if g, ok := a.groups[key]; ok {
		a.reserved -= g.cost
		a.held -= g.held
		delete(a.groups, key)
	}
}

// evictUnreliable makes room for one more group on unreliable channel ch.
func (a *assembler) evictUnreliable(ch ChannelID) {
	n := 0
	var oldest fragKey
	var oldestAt time.Time
	for k, g := range a.groups {
		if k.ch != ch {
			continue
		}
		n++
		if oldestAt.IsZero() || g.started.Before(oldestAt) {
			oldest, oldestAt = k, g.started
		}
	}
	if n >= maxUnreliableGroups {
		a.drop(oldest)
	}
}

// expire drops groups that made no progress for timeout.
func (a *assembler) expire(now time.Time, timeout time.Duration) {
	for k, g := range a.groups {
		if !now.Before(g.last.Add(timeout)) {
			a.drop(k)
		}
	}
}

// nextExpiry returns when the stalest group expires, or zero.
func (a *assembler) nextExpiry(timeout time.Duration) time.Time {
	var t time.Time
	for _, g := range a.groups {
		t = earliest(t, g.last.Add(timeout))
	}
	return t
}
