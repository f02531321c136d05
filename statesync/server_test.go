package statesync_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/msg"
)

func TestRoomStaysInSync(t *testing.T) {
	r := newRoom(t, 1, statesync.Config{}, 300)
	for id := uint32(1); id <= 20; id++ {
		r.join(id)
		r.frames(1)
	}
	r.frames(200)
	st := r.srv.Stats()
	t.Logf("stats %+v", st)
	if ok, bad := r.inSync(); !ok {
		t.Fatalf("out of sync: %v", bad)
	}
	if got := len(r.srv.ActiveClients()); got != 20 {
		t.Fatalf("%d ACTIVE clients, want 20", got)
	}
	if st.Desyncs != 0 {
		t.Fatalf("%d desyncs in a healthy room", st.Desyncs)
	}
	// Every 100 frames the full state is assembled and verified.
	var checked []uint32
	for _, e := range r.events(statesync.EventStateAssembled) {
		if e.Frame%100 == 0 {
			checked = append(checked, e.Frame)
		}
	}
	if len(checked) != 2 || checked[0] != 100 || checked[1] != 200 {
		t.Fatalf("periodic full-state checks at frames %v, want [100 200]", checked)
	}
}

// healthyRoom is a room of n clients that joined one per frame and then
// played for a while.
func healthyRoom(t *testing.T, seed uint64, n int) *room {
	r := newRoom(t, seed, statesync.Config{}, 300)
	for id := uint32(1); id <= uint32(n); id++ {
		r.join(id)
		r.frames(1)
	}
	r.frames(60)
	if ok, bad := r.inSync(); !ok {
		t.Fatalf("out of sync before the test: %v", bad)
	}
	return r
}

// TestCorruptionLocalisedAndCorrected: a client whose state is corrupted
// is named in the next verdict, corrected with the divergent bucket only
// (no full snapshot), logs a field-by-field diff naming the entity, and
// agrees with the majority again.
func TestCorruptionLocalisedAndCorrected(t *testing.T) {
	r := healthyRoom(t, 2, 12)
	victim := r.clients[5]
	target := ids(victim.e)[10]
	if !victim.e.corrupt(target) {
		t.Fatal("nothing to corrupt")
	}
	r.frames(40)
	if got := len(r.events(statesync.EventDesync)); got != 1 {
		t.Fatalf("%d desyncs detected, want 1", got)
	}
	rec := r.events(statesync.EventRecovered)
	if len(rec) != 1 || rec[0].Client != 5 {
		t.Fatalf("recoveries %+v", rec)
	}
	if n := len(r.events(statesync.EventSnapshotFallback)); n != 0 {
		t.Fatalf("%d snapshot fallbacks; the correction should have sufficed", n)
	}
	corr := r.events(statesync.EventCorrectionSent)
	if len(corr) != 1 || corr[0].Count != 1 {
		t.Fatalf("corrections %+v, want one of one bucket", corr)
	}
	if st := r.srv.Stats(); st.Desyncs != 1 || st.Corrections != 1 || st.Recovered != 1 || st.SnapshotFallbacks != 0 {
		t.Fatalf("stats: %d desyncs, %d corrections, %d recovered, %d fallbacks; want 1, 1, 1, 0", st.Desyncs, st.Corrections, st.Recovered, st.SnapshotFallbacks)
	}
	if corr[0].Bytes <= 0 || rec[0].Bytes != corr[0].Bytes || rec[0].Frames == 0 {
		t.Fatalf("correction of %d bytes, recovery of %d bytes in %d frames; want the same bytes, some frames", corr[0].Bytes, rec[0].Bytes, rec[0].Frames)
	}
	var diffs []string
	for _, e := range r.clientEvents[5] {
		if e.Kind == statesync.ClientCorrected {
			diffs = append(diffs, e.Diffs...)
		}
	}
	want := fmt.Sprintf("entity %d: HP", target)
	if len(diffs) != 1 || !strings.HasPrefix(diffs[0], want) {
		t.Fatalf("diff %q, want one naming %q", diffs, want)
	}
	if ok, bad := r.inSync(); !ok {
		t.Fatalf("out of sync after recovery: %v", bad)
	}
	t.Logf("recovered in %d frames with %d bytes; diff %q", rec[0].Frames, rec[0].Bytes, diffs[0])
}

// TestLyingSenderRejected: a client that reports the majority's state
// hash but forges its partitions never gets a partition into an
// assembled delta (the partition's result hash is not the majority's);
// the frames are still verified from other senders.
func TestLyingSenderRejected(t *testing.T) {
	r := healthyRoom(t, 3, 12)
	r.lieAbout[7] = true
	before := r.srv.Stats()
	r.frames(100)
	st := r.srv.Stats()
	if st.PartitionsRejected == before.PartitionsRejected {
		t.Fatal("no partition of the liar was rejected")
	}
	if n := st.PartitionsRejected - before.PartitionsRejected; n != uint64(len(r.events(statesync.EventPartitionRejected))) {
		t.Fatalf("Stats.PartitionsRejected grew by %d for %d rejections", n, len(r.events(statesync.EventPartitionRejected)))
	}
	for _, e := range r.events(statesync.EventPartitionRejected) {
		if e.Client != 7 {
			t.Fatalf("an honest client's partition was rejected: %+v", e)
		}
	}
	if skipped := st.Tiers[statesync.TierSkip] - before.Tiers[statesync.TierSkip]; skipped > 2 {
		t.Fatalf("%d frames skipped", skipped)
	}
	for _, e := range r.clientEvents[1] {
		if e.Kind == statesync.ClientDeltaMismatch {
			t.Fatalf("an honest client saw an assembled delta unlike its own at frame %d", e.Frame)
		}
	}
}

// TestSplitGoesReadOnly: when 60% of the room is cut off, the server's
// side (40%) turns read-only after the grace period and writable again
// when the others are back and synced.
func TestSplitGoesReadOnly(t *testing.T) {
	r := healthyRoom(t, 4, 10)
	for id := uint32(5); id <= 10; id++ {
		r.cut[id] = true
	}
	r.frames(200) // 10 s
	if !r.srv.ReadOnly() {
		t.Fatal("the minority side is not read-only")
	}
	// Heal: the cut clients reconnect and sync from the majority.
	for id := uint32(5); id <= 10; id++ {
		delete(r.cut, id)
		delete(r.clients, id)
		r.join(id)
	}
	r.frames(100)
	if r.srv.ReadOnly() {
		t.Fatal("still read-only after the split healed")
	}
	if ok, bad := r.inSync(); !ok {
		t.Fatalf("out of sync after healing: %v", bad)
	}
	on := r.events(statesync.EventReadOnly)
	if len(on) != 2 || !on[0].On || on[1].On {
		t.Fatalf("read-only events %+v", on)
	}
}

// TestMassJoinAndLeave: half the room leaves at once, then thirty join at
// once; they share one assembled state and all become ACTIVE.
func TestMassJoinAndLeave(t *testing.T) {
	r := healthyRoom(t, 5, 20)
	for id := uint32(1); id <= 10; id++ {
		r.leave(id)
	}
	r.frames(20)
	assembled := r.srv.Stats().StatesAssembled
	for id := uint32(100); id < 130; id++ {
		r.join(id)
	}
	r.frames(40)
	if got := len(r.srv.ActiveClients()); got != 40 {
		t.Fatalf("%d ACTIVE clients, want 40", got)
	}
	if n := r.srv.Stats().StatesAssembled - assembled; n > 2 {
		t.Fatalf("%d assemblies for one mass join", n)
	}
	if ok, bad := r.inSync(); !ok {
		t.Fatalf("out of sync: %v", bad)
	}
}

// TestLateJoinerStateVerified: when a provider sends a forged partition
// of the full state, the assembled state does not hash to the majority,
// is never sent, and the joiner gets a verified state from the next
// assembly (the forger's score has dropped, so others provide it).
func TestLateJoinerStateVerified(t *testing.T) {
	r := healthyRoom(t, 6, 8)
	for id := uint32(1); id <= 8; id++ {
		r.forgeState[id] = id == 1 || id == 2
	}
	r.join(50)
	r.frames(100)
	if r.srv.State(50) != statesync.StateActive {
		t.Fatalf("joiner is %v", r.srv.State(50))
	}
	rejected := len(r.events(statesync.EventStateRejected))
	if rejected == 0 {
		t.Fatal("no assembled state was rejected")
	}
	if got := r.srv.Stats().StatesRejected; got != uint64(rejected) {
		t.Fatalf("Stats.StatesRejected %d, want the %d rejections", got, rejected)
	}
	promoted := r.events(statesync.EventPromoted)
	if got := r.srv.Stats().LateJoins; got != uint64(len(promoted)) {
		t.Fatalf("Stats.LateJoins %d, want the %d promotions", got, len(promoted))
	}
	for _, e := range promoted {
		if e.Duration <= 0 || e.Duration > int64(5*time.Second) {
			t.Fatalf("client %d promoted %v after its join, want within the test's 5 s", e.Client, time.Duration(e.Duration))
		}
	}
	for _, e := range r.clientEvents[50] {
		if e.Kind == statesync.ClientRecoveryFail {
			t.Fatal("the joiner was sent a state that did not verify")
		}
	}
	if ok, bad := r.inSync(); !ok {
		t.Fatalf("out of sync: %v", bad)
	}
}

// TestSubmissionsForOtherFramesRejected: the server drives the frames; a
// hash or partition for a frame it is not collecting, a partition
// assigned with another client-list version, or a message from a stranger
// is refused with the sentinel that says why.
func TestSubmissionsForOtherFramesRejected(t *testing.T) {
	r := healthyRoom(t, 7, 4)
	cur := r.srv.Frame() - 1
	cases := []struct {
		from uint32
		m    msg.Message
		want error
	}{
		{1, &msg.StateHash{Frame: cur + 5, Hash: 1}, statesync.ErrFrame},
		{1, &msg.StateHash{Frame: cur - 50, Hash: 1}, statesync.ErrFrame},
		{1, &msg.PartitionData{Frame: cur + 5, Parts: 1}, statesync.ErrFrame},
		{1, &msg.PartitionData{Frame: cur, ListVersion: r.srv.ListVersion() + 1, Parts: 1}, statesync.ErrVersion},
		{99, &msg.StateHash{Frame: cur}, statesync.ErrUnknownClient},
		{1, &msg.Tick{}, statesync.ErrUnexpected},
	}
	for _, c := range cases {
		if err := r.srv.Step(r.now, c.from, c.m); !errors.Is(err, c.want) {
			t.Errorf("%T from %d: %v, want %v", c.m, c.from, err, c.want)
		}
	}
	if err := r.srv.Step(r.now, 1, &msg.StateHash{Frame: cur, Hash: 1}); err != nil {
		t.Errorf("a hash for the frame being collected: %v", err)
	}
}
