package relay

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// rejoinNet is a started three-player match whose rooms take rejoins.
func rejoinNet(t *testing.T) *simNet {
	t.Helper()
	n, err := newSimNet(Config{Rejoin: RejoinConfig{Enabled: true}}, []protocol.PlayerID{1, 2, 3}, 7)
	if err != nil {
		t.Fatal(err)
	}
	n.runUntil(time.Minute, func() bool { return n.core.Phase() >= PhasePlaying })
	return n
}

// TestRejoinBoostsSyncChecks: after a reconnection sync checks run every
// 30 ticks for a minute, also past the first minute of the match, where
// they run every 120 ticks otherwise.
func TestRejoinBoostsSyncChecks(t *testing.T) {
	n := rejoinNet(t)
	n.runUntil(3*time.Minute, func() bool { return n.core.NextTick() >= 2400 })
	c := n.client(3)
	c.rejoin.gone = true
	n.core.Disconnected(n.now, 3)
	n.runUntil(n.now+2*time.Second, func() bool { return false })
	c.rejoin.gone, c.rejoin.rejoining = false, true
	if err := n.core.Rejoin(n.now, 3); err != nil {
		t.Fatal(err)
	}
	var rejoinedAt uint64
	n.onEvent = func(e Event) {
		if r, ok := e.(PlayerRejoined); ok {
			rejoinedAt = n.core.NextTick()
			t.Logf("rejoined: %+v", r)
		}
	}
	var syncs []uint64
	n.onFrame = func(f *msg.TickFrame) {
		if f.Flags&msg.FlagSyncRequest != 0 {
			syncs = append(syncs, f.Tick)
		}
	}
	n.runUntil(n.now+3*time.Minute, func() bool { return rejoinedAt > 0 && n.core.NextTick() >= rejoinedAt+3600 })
	if rejoinedAt == 0 {
		t.Fatal("player 3 never caught up")
	}
	var boosted, after int
	for _, k := range syncs {
		switch {
		case k > rejoinedAt && k < rejoinedAt+1700:
			boosted++
		case k > rejoinedAt+1900:
			after++
		}
	}
	// A minute is 1,800 ticks: 60 checks at 30, then 1,700 ticks at 120.
	if boosted < 55 || after > 16 {
		t.Errorf("%d sync checks in the minute after the rejoin (want about 56), %d in the 1,700 ticks after it (want about 14): %v", boosted, after, syncs)
	}
	if st, _ := n.core.Player(3); st.Status != StatusActive || st.Rejoins != 1 {
		t.Errorf("player 3: %v after %d rejoins", st.Status, st.Rejoins)
	}
}

// TestRejoinRefusals: a player that is not away cannot rejoin; an
// unknown one neither; an observer id must be no player's.
func TestRejoinRefusals(t *testing.T) {
	n := rejoinNet(t)
	if err := n.core.Rejoin(n.now, 2); err == nil {
		t.Error("an active player rejoined")
	}
	if err := n.core.Rejoin(n.now, 9); err == nil {
		t.Error("an unknown player rejoined")
	}
	if err := n.core.Observe(n.now, 2, 0); err == nil {
		t.Error("an observer took a player's id")
	}
	if err := n.core.Step(n.now, 1, &msg.CaughtUp{Tick: 3}); err == nil {
		t.Error("an active player's CaughtUp was taken")
	}
}

// rejoinOf disconnects player id and has it rejoin 2 s later.
func rejoinOf(t *testing.T, n *simNet, id protocol.PlayerID) {
	t.Helper()
	c := n.client(id)
	c.rejoin.gone = true
	n.core.Disconnected(n.now, id)
	n.runUntil(n.now+2*time.Second, func() bool { return false })
	c.rejoin.gone, c.rejoin.rejoining = false, true
	if err := n.core.Rejoin(n.now, id); err != nil {
		t.Fatal(err)
	}
}

// TestRejoinAbortsWithoutHonestDonor: when every donor forges its
// snapshot, each is tried once, then the transfer is aborted and the
// player removed for good; the match goes on.
func TestRejoinAbortsWithoutHonestDonor(t *testing.T) {
	n := rejoinNet(t)
	n.runUntil(time.Minute, func() bool { return n.core.NextTick() >= 100 })
	n.client(1).rejoin.lie, n.client(2).rejoin.lie = true, true
	var failed []DonorFailed
	var aborted []TransferAborted
	n.onEvent = func(e Event) {
		switch e := e.(type) {
		case DonorFailed:
			failed = append(failed, e)
		case TransferAborted:
			aborted = append(aborted, e)
		}
	}
	rejoinOf(t, n, 3)
	n.runUntil(n.now+10*time.Second, func() bool { return false })
	if len(failed) != 2 || len(aborted) != 1 || aborted[0].To != 3 || aborted[0].Attempts != 2 {
		t.Fatalf("donor failures %+v, aborted %+v: want both donors rejected, then the transfer aborted", failed, aborted)
	}
	if st, _ := n.core.Player(3); st.Status != StatusRemoved {
		t.Errorf("player 3 is %v, want removed", st.Status)
	}
	if n.core.Phase() != PhasePlaying {
		t.Errorf("the match is %v", n.core.Phase())
	}
}

// TestRejoinKeepalivesAndSlowDonor: a donor that never sends its
// snapshot is passed over DonorTimeout (10 s) after its tick; meanwhile
// the rejoining player gets a keepalive every second; the next donor
// serves it.
func TestRejoinKeepalivesAndSlowDonor(t *testing.T) {
	n := rejoinNet(t)
	n.client(2).up, n.client(2).down = 10*time.Millisecond, 10*time.Millisecond // the first pick
	n.runUntil(time.Minute, func() bool { return n.core.NextTick() >= 100 })
	n.client(2).rejoin.mute = true
	keepalives := 0
	var failed []DonorFailed
	var loaded []SnapshotLoaded
	n.onEvent = func(e Event) {
		switch e := e.(type) {
		case DonorFailed:
			failed = append(failed, e)
		case SnapshotLoaded:
			loaded = append(loaded, e)
		}
	}
	rejoinOf(t, n, 3)
	start := n.now
	n.runUntil(n.now+30*time.Second, func() bool { return len(loaded) > 0 })
	for _, l := range n.keepalives {
		if l > start {
			keepalives++
		}
	}
	if len(failed) != 1 || failed[0].Donor != 2 || failed[0].Reason != "donor too slow" || len(loaded) != 1 || loaded[0].Donor != 1 {
		t.Fatalf("donor failures %+v, loaded %+v: want donor 2 too slow, then donor 1's snapshot", failed, loaded)
	}
	if took := loaded[0].After; keepalives < 9 {
		t.Errorf("%d keepalives during a download of %v, want one a second", keepalives, took)
	}
}
