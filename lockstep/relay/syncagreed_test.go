package relay

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/protocol"
)

// TestSyncAgreedReportsAgreementsOnly: every sync check the players
// agree on gives one SyncAgreed with their hash; once a player reports
// a different hash, the checks give Desync and never SyncAgreed.
func TestSyncAgreedReportsAgreementsOnly(t *testing.T) {
	n, err := newSimNet(Config{}, []protocol.PlayerID{1, 2, 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	n.quiet = true
	const badFrom = 150
	n.clients[2].badHashAt = badFrom
	var agreed []SyncAgreed
	desyncs := 0
	n.onEvent = func(e Event) {
		switch e := e.(type) {
		case SyncAgreed:
			agreed = append(agreed, e)
		case Desync:
			desyncs++
		}
	}
	n.runUntil(time.Minute, func() bool { return n.core.Phase() >= PhasePlaying })
	n.runUntil(n.now+time.Minute, func() bool { return n.core.NextTick() > 240 })
	if len(agreed) < 4 || desyncs == 0 {
		t.Fatalf("%d agreements, %d desyncs", len(agreed), desyncs)
	}
	for i, a := range agreed {
		if a.Tick%syncEveryEarly != 0 || a.Tick >= badFrom || a.Hash != a.Tick*0x9e3779b97f4a7c15 || (i > 0 && a.Tick <= agreed[i-1].Tick) {
			t.Errorf("agreement %+v", a)
		}
	}
}
