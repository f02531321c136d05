package relay

import (
	"errors"
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// rejoinCore is a playing core of n players (ids 1..n) that takes rejoins,
// with the ready output collected.
type rejoinCore struct {
	*Core
	t      *testing.T
	now    time.Duration
	sent   []Envelope
	events []Event
}

func newRejoinCore(t *testing.T, n int, rc RejoinConfig) *rejoinCore {
	t.Helper()
	rc.Enabled = true
	var ids []protocol.PlayerID
	for i := 1; i <= n; i++ {
		ids = append(ids, protocol.PlayerID(i))
	}
	r := &rejoinCore{Core: newPlaying(t, Config{Rejoin: rc}, ids...), t: t}
	// A second of play, so that ticks exist before the transfers'.
	for r.now < time.Second {
		r.now += 10 * time.Millisecond
		r.Tick(r.now)
		r.drain()
	}
	return r
}

// drain collects what the core produced.
func (r *rejoinCore) drain() {
	for r.HasReady() {
		rd := r.Ready()
		r.sent = append(r.sent, rd.Messages...)
		r.events = append(r.events, rd.Events...)
		r.Advance()
	}
}

func (r *rejoinCore) step(from protocol.PlayerID, m msg.Message) error {
	err := r.Step(r.now, from, m)
	r.drain()
	return err
}

// away disconnects id and has it rejoin; it returns the transfer.
func (r *rejoinCore) rejoin(id protocol.PlayerID) *transfer {
	r.t.Helper()
	r.Disconnected(r.now, id)
	if err := r.Rejoin(r.now, id); err != nil {
		r.t.Fatal(err)
	}
	r.drain()
	return r.transferTo(id)
}

// sentTo returns the messages of type T sent to id.
func sentTo[T msg.Message](r *rejoinCore, id protocol.PlayerID) []T {
	var out []T
	for _, e := range r.sent {
		if m, ok := e.Msg.(T); ok && e.To == id {
			out = append(out, m)
		}
	}
	return out
}

func eventsOf[T Event](r *rejoinCore) []T {
	var out []T
	for _, e := range r.events {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

// TestObserveRefusals: an observer is taken only while playing, and not
// under an id a player or another transfer holds; ending the only
// transfer ends it.
func TestObserveRefusals(t *testing.T) {
	c, err := New(Config{Rand: newSeededReader(3)}, []protocol.PlayerID{1, 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Observe(0, 9, 0); !errors.Is(err, ErrPhase) {
		t.Errorf("observer before play: %v, want ErrPhase", err)
	}
	r := newRejoinCore(t, 3, RejoinConfig{})
	if err := r.Observe(r.now, 9, 30); err != nil {
		t.Fatal(err)
	}
	if err := r.Observe(r.now, 9, 30); !errors.Is(err, ErrConfig) {
		t.Errorf("a second observer under id 9: %v, want ErrConfig", err)
	}
	r.ObserverGone(r.now, 9)
	if r.transferTo(9) != nil {
		t.Error("the observer's transfer outlived ObserverGone")
	}
}

// TestRejoinsCountedExactly: a player may come back MaxRejoins times; its
// next disconnection removes it.
func TestRejoinsCountedExactly(t *testing.T) {
	r := newRejoinCore(t, 3, RejoinConfig{MaxRejoins: 1})
	tr := r.rejoin(3)
	if err := r.step(3, &msg.SnapshotVerdict{Tick: tr.tick, OK: true}); err != nil {
		t.Fatal(err)
	}
	r.timeline.next = 40
	if err := r.step(3, &msg.CaughtUp{Tick: tr.tick}); err != nil {
		t.Fatal(err)
	}
	st, _ := r.Player(3)
	p := r.player(3)
	if st.Status != StatusActive || st.Rejoins != 1 || p.state.LastEcho != 39 || !p.state.Echoed {
		t.Fatalf("after catching up: %v, %d rejoins, echo %d (%v); want active, 1, 39 (echoed)", st.Status, st.Rejoins, p.state.LastEcho, p.state.Echoed)
	}
	r.Disconnected(r.now, 3)
	if st, _ := r.Player(3); st.Status == StatusAway {
		t.Errorf("player 3 is away again after its one rejoin, want it leaving")
	}
}

// TestDonorsTriedExactly: a transfer asks MaxDonors donors at most, then
// is aborted; every RejoinStart carries the match's timing.
func TestDonorsTriedExactly(t *testing.T) {
	r := newRejoinCore(t, 4, RejoinConfig{MaxDonors: 2})
	tr := r.rejoin(4)
	for range 3 {
		if err := r.step(4, &msg.SnapshotVerdict{Tick: tr.tick}); err != nil {
			break
		}
	}
	ab := eventsOf[TransferAborted](r)
	if len(ab) != 1 || ab[0].Attempts != 2 || ab[0].Reason != "no donor left" {
		t.Fatalf("aborted %+v, want once after 2 attempts, no donor left", ab)
	}
	starts := sentTo[*msg.RejoinStart](r, 4)
	if len(starts) != 2 {
		t.Fatalf("%d RejoinStarts, want 2", len(starts))
	}
	for _, s := range starts {
		if s.TickIntervalUs != uint32(r.timeline.interval/time.Microsecond) || s.DeadlineUs != uint32(r.deadline/time.Microsecond) {
			t.Errorf("RejoinStart interval %d µs, deadline %d µs; want %v and %v", s.TickIntervalUs, s.DeadlineUs, r.timeline.interval, r.deadline)
		}
	}
}

// TestDonorChoice: the donor is the active player whose liveness echo is
// freshest (in seconds' worth of ticks), then the lowest round trip, then
// the lowest id.
func TestDonorChoice(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   func(r *rejoinCore)
		donor protocol.PlayerID
	}{
		{"lowest id", func(*rejoinCore) {}, 1},
		{"lowest round trip", func(r *rejoinCore) { r.player(1).state.Clock.RTT.Mean += time.Millisecond }, 2},
		{"freshest echo", func(r *rejoinCore) {
			r.timeline.next = 200
			for _, id := range []protocol.PlayerID{1, 2, 3} {
				r.player(id).state.LastEcho, r.player(id).state.Echoed = 199, true
			}
			r.player(1).state.LastEcho = 199 - uint64(r.cfg.TickRate) // a second behind
			r.player(2).state.Clock.RTT.Mean += time.Millisecond
			r.player(3).state.Clock.RTT.Mean += 2 * time.Millisecond
		}, 2},
		{"echo lag under a second ties", func(r *rejoinCore) {
			r.timeline.next = 200
			for _, id := range []protocol.PlayerID{1, 2, 3} {
				r.player(id).state.LastEcho, r.player(id).state.Echoed = 199, true
			}
			r.player(1).state.LastEcho = 199 - uint64(r.cfg.TickRate) + 2
			r.player(2).state.Clock.RTT.Mean += time.Millisecond
			r.player(3).state.Clock.RTT.Mean += 2 * time.Millisecond
		}, 1},
	} {
		r := newRejoinCore(t, 4, RejoinConfig{})
		tc.set(r)
		if tr := r.rejoin(4); tr == nil || tr.donor != tc.donor {
			t.Errorf("%s: donor %v, want %d", tc.name, tr, tc.donor)
		}
	}
}

// TestDonorHashAndDigestRules: a donor whose own sync hash is not the
// agreed one is passed over; with one witness, its digest alone is no
// majority of the two voters (it and the donor's bytes); a rejected
// verdict for the current tick moves on, a stale one is ignored.
func TestDonorHashAndDigestRules(t *testing.T) {
	r := newRejoinCore(t, 4, RejoinConfig{})
	tr := r.rejoin(4)
	donor := tr.donor
	var witnesses []protocol.PlayerID
	for id := protocol.PlayerID(1); id <= 3; id++ {
		if id != donor {
			witnesses = append(witnesses, id)
		}
	}
	r.Core.snapshotHash(r.player(donor), &msg.SyncHash{Tick: tr.tick, Hash: 1})
	for _, w := range witnesses {
		r.Core.snapshotHash(r.player(w), &msg.SyncHash{Tick: tr.tick, Hash: 2})
	}
	r.drain()
	if f := eventsOf[DonorFailed](r); len(f) != 1 || f[0].Donor != donor || f[0].Reason != "donor hash not the agreed one" {
		t.Fatalf("donor failures %+v, want the donor's hash refused", f)
	}

	r = newRejoinCore(t, 3, RejoinConfig{})
	tr = r.rejoin(3)
	w := protocol.PlayerID(3 - tr.donor) // 1 or 2: the one that is not the donor
	if err := r.step(w, &msg.SnapshotDigest{Tick: tr.tick, Digest: [32]byte{7}}); err != nil {
		t.Fatal(err)
	}
	if d := sentTo[*msg.SnapshotDigest](r, 3); len(d) != 0 {
		t.Fatalf("one witness's digest alone was sent as agreed: %+v", d)
	}
	if err := r.step(3, &msg.SnapshotVerdict{Tick: tr.tick - 1}); err != nil {
		t.Fatalf("a stale rejected verdict: %v, want it ignored", err)
	}
	if f := eventsOf[DonorFailed](r); len(f) != 0 {
		t.Fatalf("a stale verdict moved the transfer on: %+v", f)
	}
	if err := r.step(3, &msg.SnapshotVerdict{Tick: tr.tick}); err != nil {
		t.Fatal(err)
	}
	if f := eventsOf[DonorFailed](r); len(f) != 1 || f[0].Reason != "snapshot rejected by its recipient" {
		t.Fatalf("donor failures %+v, want the rejected snapshot", f)
	}
}
