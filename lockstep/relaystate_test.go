package lockstep

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

func TestFeedbackMovesSubmitOffset(t *testing.T) {
	st := clientState{deadline: 12 * time.Millisecond, interval: 33 * time.Millisecond}
	steps := []struct {
		fb   msg.TimingFeedback
		want time.Duration
	}{
		{msg.TimingFeedback{LateCount: 2, RecommendedOffsetUs: 3000}, 3 * time.Millisecond},
		{msg.TimingFeedback{LateCount: 1, RecommendedOffsetUs: 9000}, 8 * time.Millisecond},   // at most 5 ms a window
		{msg.TimingFeedback{LateCount: 1, RecommendedOffsetUs: -4000}, 9 * time.Millisecond},  // late: never later
		{msg.TimingFeedback{LateCount: 4, RecommendedOffsetUs: 20000}, 12 * time.Millisecond}, // capped at the deadline
		{msg.TimingFeedback{AvgArrivalDeltaUs: 30000, RecommendedOffsetUs: -25000}, 11 * time.Millisecond},
		{msg.TimingFeedback{AvgArrivalDeltaUs: 15000, RecommendedOffsetUs: -9000}, 10 * time.Millisecond}, // above the target: relax
		{msg.TimingFeedback{AvgArrivalDeltaUs: 8000, RecommendedOffsetUs: -400}, 9600 * time.Microsecond}, // by no more than the excess
		{msg.TimingFeedback{AvgArrivalDeltaUs: 6000, RecommendedOffsetUs: 1000}, 9600 * time.Microsecond}, // below the target, not late: keep
	}
	for i, s := range steps {
		st.feedback(&s.fb)
		if st.submitOffset != s.want {
			t.Fatalf("step %d: offset %v, want %v", i, st.submitOffset, s.want)
		}
	}
	if st.diag.LateTicks != 8 {
		t.Errorf("late ticks %d, want 8", st.diag.LateTicks)
	}
	st = clientState{deadline: time.Second, interval: 33 * time.Millisecond}
	st.feedback(&msg.TimingFeedback{AvgArrivalDeltaUs: 50000, RecommendedOffsetUs: -40000})
	if st.submitOffset != 0 {
		t.Errorf("offset went below zero: %v", st.submitOffset)
	}
	for range 10 {
		st.feedback(&msg.TimingFeedback{LateCount: 1, RecommendedOffsetUs: 50000})
	}
	if st.submitOffset != 32*time.Millisecond {
		t.Errorf("offset %v, want less than a tick window (32ms)", st.submitOffset)
	}
}

func TestRemovalTakesEffectOnItsTick(t *testing.T) {
	st := clientState{id: 2, status: StatusPlaying}
	other := msg.Removal{Player: 3, AtTick: 2, Reason: msg.ReasonTimeout}
	self := msg.Removal{Player: 2, AtTick: 3, Reason: msg.ReasonLagSwitch}
	st.announce(other)
	st.announce(other) // repeated by every frame until it takes effect
	st.announce(self)
	for tick := range uint64(4) {
		st.queue = append(st.queue, queuedFrame{ticks: protocol.TickOrders{Tick: tick}, sync: tick == 1})
	}
	for tick := range uint64(4) {
		got, ok := st.poll(time.Duration(tick))
		if !ok || got.Tick != tick {
			t.Fatalf("poll %d: %v %v", tick, got, ok)
		}
		switch tick {
		case 1:
			if len(st.removed) != 0 {
				t.Fatalf("removal in effect at tick %d: %v", tick, st.removed)
			}
			if !st.reportHash(1, 5) || st.reportHash(1, 6) {
				t.Error("sync hash for tick 1 not asked exactly once")
			}
		case 2:
			st.announce(other) // a late repeat is not a new removal
			if len(st.removed) != 1 || st.removed[0] != other || len(st.schedule) != 1 {
				t.Fatalf("at tick 2: removed %v, scheduled %v", st.removed, st.schedule)
			}
		case 3:
			if st.status != StatusDisconnected || st.err == nil {
				t.Fatalf("own removal: status %v, err %v", st.status, st.err)
			}
		}
	}
	if _, ok := st.poll(9); ok {
		t.Error("poll of an empty queue returned a tick")
	}
}
