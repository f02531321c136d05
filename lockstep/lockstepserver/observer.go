package lockstepserver

import (
	"github.com/tickwire/tickwire/lockstep/msg"
)

// Bounds of observers.
const (
	// DefaultMaxObservers is tickwire serve's default for
	// Config.MaxObservers.
	DefaultMaxObservers = 8
	// MaxDelayTicks bounds an observer's feed delay (ten minutes at 30
	// ticks per second).
	MaxDelayTicks = 18_000
	// maxFeedBytes bounds what one observer's delay line holds; an
	// observer beyond it is closed.
	maxFeedBytes = 32 << 20
)

// feed is one observer's delay line: every message for it waits until
// the room has broadcast the tick it belongs to plus the delay, so an
// observer sees the match DelayTicks late (the anti-coaching delay of the
// seed design). It holds encoded messages, oldest first.
type feed struct {
	delay uint64
	asked bool // the observer said hello
	hello bool // its transfer started: the line takes the room's frames
	items []feedItem
	bytes int
}

type feedItem struct {
	tick uint64 // the message's tick: released once the room broadcast tick+delay
	data []byte
}

// push queues a copy of an encoded message of tick; false if the line is
// over its bound.
func (f *feed) push(tick uint64, data []byte) bool {
	f.items = append(f.items, feedItem{tick: tick, data: append([]byte(nil), data...)})
	f.bytes += len(data)
	return f.bytes <= maxFeedBytes
}

// release returns the messages due once tick last has been broadcast, in
// order, and forgets them; the result is valid until the next push.
func (f *feed) release(last uint64, emit func([]byte)) {
	n := 0
	for n < len(f.items) && f.items[n].tick+f.delay <= last {
		emit(f.items[n].data)
		f.bytes -= len(f.items[n].data)
		n++
	}
	clear(f.items[:n])
	f.items = f.items[n:]
	if len(f.items) == 0 {
		f.items = f.items[:0:0]
	}
}

// feedTick is the tick a message for an observer belongs to, and whether
// it waits in the delay line at all (keepalives do not).
func feedTick(m msg.Message) (uint64, bool) {
	switch m := m.(type) {
	case *msg.TickFrame:
		return m.Tick, true
	case *msg.RejoinStart:
		return m.SnapshotTick, true
	case *msg.SnapshotChunk:
		return m.Tick, true
	case *msg.SnapshotHash:
		return m.Tick, true
	case *msg.SnapshotDigest:
		return m.Tick, true
	case *msg.PlayerRemoved:
		return m.AtTick, true
	}
	return 0, false
}
