package transport

import (
	"errors"
	"time"
)

// maxUnreliableGroups bounds the partly received messages of one unreliable
// channel; a new one evicts the oldest.
const maxUnreliableGroups = 4

var errFragment = errors.New("transport: inconsistent fragment")

type fragKey struct {
	ch  ChannelID
	seq uint16
}

// fragGroup is a partly received message.
type fragGroup struct {
	count    uint16
	total    uint32
	got      uint32 // bytes received
	n        int    // fragments received
	pieces   [][]byte
	started  time.Time
	last     time.Time
	reliable bool
}

// assembler reassembles fragmented messages. Each group reserves its
// declared total size when it starts, and the reservations of a connection
// never exceed the limit, so a started group can always complete.
type assembler struct {
	groups   map[fragKey]*fragGroup
	reserved int
	limit    int
}

// needs returns the bytes a fragment would newly reserve: its declared
// total if it starts a group, else 0.
func (a *assembler) needs(f *frame) int {
	if _, ok := a.groups[fragKey{f.channel, f.seq}]; ok {
		return 0
	}
	return int(f.total)
}

// room reports whether n more bytes can be reserved.
func (a *assembler) room(n int) bool { return a.reserved+n <= a.limit }

// add stores a fragment. It returns the message when the fragment completes
// it. A fragment that contradicts its group drops the group.
func (a *assembler) add(f *frame, reliable bool, now time.Time) ([]byte, error) {
	key := fragKey{f.channel, f.seq}
	g, ok := a.groups[key]
	if !ok {
		if !reliable {
			a.evictUnreliable(f.channel)
		}
		if !a.room(int(f.total)) {
			return nil, errFragment
		}
		if a.groups == nil {
			a.groups = make(map[fragKey]*fragGroup)
		}
		g = &fragGroup{count: f.count, total: f.total, pieces: make([][]byte, f.count), started: now, reliable: reliable}
		a.groups[key] = g
		a.reserved += int(f.total)
	}
	if g.count != f.count || g.total != f.total || g.got+uint32(len(f.payload)) > g.total {
		a.drop(key)
		return nil, errFragment
	}
	if g.pieces[f.index] != nil {
		return nil, nil // duplicate
	}
	g.pieces[f.index] = append([]byte(nil), f.payload...)
	g.got += uint32(len(f.payload))
	g.n++
	g.last = now
	if g.n < int(g.count) {
		return nil, nil
	}
	a.drop(key)
	if g.got != g.total {
		return nil, errFragment
	}
	msg := make([]byte, 0, g.total)
	for _, p := range g.pieces {
		msg = append(msg, p...)
	}
	return msg, nil
}

func (a *assembler) drop(key fragKey) {
	if g, ok := a.groups[key]; ok {
		a.reserved -= int(g.total)
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
