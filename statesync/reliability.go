package statesync

import (
	"slices"
	"time"

	"github.com/tickwire/tickwire/statesync/msg"
)

// Reliability constants of the seed, in fixed point.
const (
	// ReliabilityInterval is how many frames apart scores are broadcast
	// (20 frames, one second at 20 Hz).
	ReliabilityInterval = 20
	// ExpectedLatency is the seed's EXPECTED_LATENCY_MS: an answer this
	// fast earns half the speed bonus, one twice as slow none.
	ExpectedLatency = 50 * time.Millisecond
)

// ReliabilityTracker keeps each client's reliability score, 1.14 fixed
// point in [0, ScoreMax], on the server. A failure (an assigned partition
// missing or rejected) multiplies the score by 0.7; a success moves it a
// tenth of the way towards 1 + speed, where speed falls from 1 for an
// instant answer to 0 at twice ExpectedLatency. Scores are versioned: the
// version grows when a changed table is published, and every Tick carries
// it, so a client that missed a RELIABILITY_UPDATE knows it.
type ReliabilityTracker struct {
	scores    map[uint32]*reliability
	version   uint32
	published bool // the scores have not changed since the last publish
	table     msg.ReliabilityUpdate
}

type reliability struct {
	score   uint16
	latency time.Duration // EMA, weight 1/5 for the newest answer
}

// NewReliabilityTracker returns an empty tracker at version 1.
func NewReliabilityTracker() *ReliabilityTracker {
	return &ReliabilityTracker{scores: make(map[uint32]*reliability), version: 1, published: true,
		table: msg.ReliabilityUpdate{Version: 1}}
}

func (t *ReliabilityTracker) get(c uint32) *reliability {
	r := t.scores[c]
	if r == nil {
		r = &reliability{score: ScoreOne}
		t.scores[c] = r
	}
	return r
}

// Fail records that client failed to deliver.
func (t *ReliabilityTracker) Fail(c uint32) {
	r := t.get(c)
	r.score = uint16(uint32(r.score) * 7 / 10)
	t.published = false
}

// Distrust drops a client's score to zero: evidence that it lied. Its
// weight in the draw of senders becomes 1 in tens of thousands.
func (t *ReliabilityTracker) Distrust(c uint32) {
	t.get(c).score = 0
	t.published = false
}

// Succeed records that client delivered after latency.
func (t *ReliabilityTracker) Succeed(c uint32, latency time.Duration) {
	r := t.get(c)
	speed := int64(ScoreOne) - int64(ScoreOne)*int64(latency)/int64(2*ExpectedLatency)
	speed = max(speed, 0)
	next := (int64(r.score)*9 + int64(ScoreOne) + speed) / 10
	r.score = uint16(min(next, ScoreMax))
	if r.latency == 0 {
		r.latency = latency
	} else {
		r.latency = (r.latency*4 + latency) / 5
	}
	t.published = false
}

// Remove forgets a departed client.
func (t *ReliabilityTracker) Remove(c uint32) {
	if _, ok := t.scores[c]; ok {
		delete(t.scores, c)
		t.published = false
	}
}

// Score is the live score of c (ScoreOne if unknown).
func (t *ReliabilityTracker) Score(c uint32) uint16 {
	if r := t.scores[c]; r != nil {
		return r.score
	}
	return ScoreOne
}

// Published is c's score in the last published table, the one clients
// assign with.
func (t *ReliabilityTracker) Published(c uint32) uint16 { return ScoreIn(t.table.Scores, c) }

// ScoreIn looks a client up in a sorted score table (ScoreOne if absent).
func ScoreIn(table []msg.Score, c uint32) uint16 {
	i, ok := slices.BinarySearchFunc(table, c, func(s msg.Score, c uint32) int { return cmpU32(s.Client, c) })
	if ok {
		return table[i].Score
	}
	return ScoreOne
}

// Version is the version of the last published table.
func (t *ReliabilityTracker) Version() uint32 { return t.version }

// Publish returns the table to broadcast when it changed since the last
// one, with a new version, or false if nothing changed.
func (t *ReliabilityTracker) Publish() (msg.ReliabilityUpdate, bool) {
	if t.published {
		return msg.ReliabilityUpdate{}, false
	}
	t.published = true
	t.version++
	t.table = t.current()
	return t.table, true
}

// Table is the last published table.
func (t *ReliabilityTracker) Table() msg.ReliabilityUpdate { return t.table }

// current is the live scores as a table (entries equal to ScoreOne are
// left out: they are the default).
func (t *ReliabilityTracker) current() msg.ReliabilityUpdate {
	u := msg.ReliabilityUpdate{Version: t.version}
	for c, r := range t.scores {
		if r.score != ScoreOne {
			u.Scores = append(u.Scores, msg.Score{Client: c, Score: r.score})
		}
	}
	slices.SortFunc(u.Scores, func(a, b msg.Score) int { return cmpU32(a.Client, b.Client) })
	return u
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
