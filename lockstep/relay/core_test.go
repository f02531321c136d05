package relay

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// newPlaying returns a core in the playing phase at time zero: calibration
// applied directly (40 ms round trips, 2 ms jitter, a 60 ms deadline) and
// the seed exchanged.
func newPlaying(t *testing.T, cfg Config, ids ...protocol.PlayerID) *Core {
	t.Helper()
	if cfg.Rand == nil {
		cfg.Rand = newSeededReader(3)
	}
	c, err := New(cfg, ids, 0)
	if err != nil {
		t.Fatal(err)
	}
	var per []PlayerCalibration
	for _, id := range ids {
		per = append(per, PlayerCalibration{Player: id, Samples: 20, MedianRTT: 40 * time.Millisecond, Jitter: 2 * time.Millisecond,
			EstimatedOneWay: 20 * time.Millisecond, OneWayP95: 21 * time.Millisecond})
	}
	if err := c.ApplyCalibration(0, MatchCalibration{PerPlayer: per, SharedInitialRunAhead: 2, InitialTickDeadline: 60 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []func(id protocol.PlayerID) msg.Message{
		func(id protocol.PlayerID) msg.Message {
			return &msg.SeedCommit{Commitment: Commitment([32]byte{byte(id)}, [16]byte{})}
		},
		func(id protocol.PlayerID) msg.Message { return &msg.SeedReveal{Contribution: [32]byte{byte(id)}} },
	} {
		for _, id := range ids {
			if err := c.Step(0, id, step(id)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if c.Phase() != PhasePlaying {
		t.Fatalf("phase %v", c.Phase())
	}
	c.Ready()
	c.Advance()
	return c
}

// submitAt steps an honest submission of orders for tick k: sent at the
// window's end, arriving 20 ms later.
func submitAt(t *testing.T, c *Core, id protocol.PlayerID, k uint64, orders ...protocol.TimestampedOrder) {
	t.Helper()
	end := c.Start() + time.Duration(k+1)*c.TickInterval()
	s := &msg.OrderSubmit{Tick: k, SentUs: durUs(end), Orders: orders, Size: 16 * len(orders)}
	if err := c.Step(end+20*time.Millisecond, id, s); err != nil {
		t.Fatal(err)
	}
}

// frames returns the frames in Ready and advances.
func frames(c *Core) []msg.TickFrame {
	var out []msg.TickFrame
	for _, e := range c.Ready().Messages {
		if f, ok := e.Msg.(*msg.TickFrame); ok {
			g := *f
			g.Orders = append([]protocol.TimestampedOrder(nil), f.Orders...)
			out = append(out, g)
		}
	}
	c.Advance()
	return out
}

func events[T Event](c *Core) []T {
	var out []T
	for _, e := range c.Ready().Events {
		if v, ok := e.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func move(id protocol.PlayerID, sub uint32) protocol.TimestampedOrder {
	return protocol.TimestampedOrder{Player: id, Order: protocol.Move{Units: []protocol.EntityID{1}}, SubTickTime: sub}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		cfg Config
		ids []protocol.PlayerID
	}{
		"no players":   {Config{}, nil},
		"duplicate id": {Config{}, []protocol.PlayerID{1, 1}},
		"tick rate":    {Config{TickRate: 1000}, []protocol.PlayerID{1}},
		"profile":      {Config{Profile: QosProfile{DeadlineMin: time.Second, DeadlineMax: time.Millisecond}}, []protocol.PlayerID{1}},
	} {
		if _, err := New(tc.cfg, tc.ids, 0); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err %v, want ErrConfig", name, err)
		}
	}
}

func TestStepErrors(t *testing.T) {
	c := newPlaying(t, Config{}, 1, 2)
	if err := c.Step(0, 9, &msg.SyncHash{}); !errors.Is(err, ErrUnknownPlayer) {
		t.Errorf("stranger: %v", err)
	}
	if err := c.Step(0, 1, &msg.TickFrame{}); !errors.Is(err, ErrUnexpected) {
		t.Errorf("relay-to-client message: %v", err)
	}
	if err := c.Step(0, 1, &msg.SeedCommit{}); !errors.Is(err, ErrPhase) {
		t.Errorf("commit while playing: %v", err)
	}
	if err := c.Step(0, 1, &msg.OrderSubmit{Tick: 1000}); !errors.Is(err, ErrTick) {
		t.Errorf("submission far ahead: %v", err)
	}
	if err := c.Step(0, 1, &msg.SyncHash{Tick: 7}); !errors.Is(err, ErrTick) {
		t.Errorf("hash for an unrequested tick: %v", err)
	}
}

// TestIdleAtDeadline: the relay broadcasts each tick at window end plus
// deadline, orders or not, with Idle for everyone who sent none.
func TestIdleAtDeadline(t *testing.T) {
	c := newPlaying(t, Config{}, 1, 2, 3)
	submitAt(t, c, 2, 0, move(2, 500))
	due := c.Start() + c.TickInterval() + c.Deadline()
	if at, _ := c.NextDeadline(); at != due {
		t.Fatalf("next deadline %v, want %v", at, due)
	}
	c.Tick(due - 1)
	if fs := frames(c); len(fs) != 0 {
		t.Fatalf("frame before its deadline: %+v", fs)
	}
	c.Tick(due)
	fs := frames(c)
	if len(fs) != 1 || fs[0].Tick != 0 {
		t.Fatalf("frames %+v", fs)
	}
	if got := fmtOrders(fs[0].Orders); got != "1:Idle 3:Idle 2:Move@500" {
		t.Errorf("tick 0 orders %q", got)
	}
}

func TestChronologicalOrder(t *testing.T) {
	os := []protocol.TimestampedOrder{move(3, 10), move(2, 10), move(1, 20), move(2, 5), {Player: 2, Order: protocol.Sell{}, SubTickTime: 10}}
	sortChronological(os)
	want := "2:Move@5 2:Move@10 2:Sell@10 3:Move@10 1:Move@20"
	if got := fmtOrders(os); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestSeedCommitReveal(t *testing.T) {
	c, err := New(Config{Rand: newSeededReader(1)}, []protocol.PlayerID{1, 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ApplyCalibration(0, MatchCalibration{}); err != nil {
		t.Fatal(err)
	}
	a := [32]byte{0: 0xf0, 1: 0x0f, 8: 0xff}
	b := [32]byte{0: 0x0f, 1: 0x0f}
	nonce := [16]byte{7}
	for id, contrib := range map[protocol.PlayerID][32]byte{1: a, 2: b} {
		if err := c.Step(0, id, &msg.SeedCommit{Commitment: Commitment(contrib, nonce)}); err != nil {
			t.Fatal(err)
		}
	}
	if c.Phase() != PhaseRevealing {
		t.Fatalf("phase %v after both commitments", c.Phase())
	}
	if err := c.Step(0, 1, &msg.SeedReveal{Contribution: a, Nonce: nonce}); err != nil {
		t.Fatal(err)
	}
	if err := c.Step(0, 1, &msg.SeedReveal{Contribution: a, Nonce: nonce}); !errors.Is(err, ErrDuplicate) {
		t.Errorf("second reveal: %v", err)
	}
	if err := c.Step(0, 2, &msg.SeedReveal{Contribution: b, Nonce: nonce}); err != nil {
		t.Fatal(err)
	}
	ev := events[SeedAgreed](c)
	if len(ev) != 1 || ev[0].Seed != 0x00_00_00_00_00_00_00_ff {
		t.Fatalf("seed events %+v, want XOR 0xff", ev)
	}
}

func TestFalseRevealRemoves(t *testing.T) {
	c, _ := New(Config{Rand: newSeededReader(1)}, []protocol.PlayerID{1, 2}, 0)
	_ = c.ApplyCalibration(0, MatchCalibration{})
	for _, id := range []protocol.PlayerID{1, 2} {
		_ = c.Step(0, id, &msg.SeedCommit{Commitment: Commitment([32]byte{byte(id)}, [16]byte{})})
	}
	if err := c.Step(0, 2, &msg.SeedReveal{Contribution: [32]byte{9}}); !errors.Is(err, ErrBadReveal) {
		t.Fatalf("false reveal: %v", err)
	}
	if st, _ := c.Player(2); st.Status != StatusRemoved {
		t.Errorf("liar is %v", st.Status)
	}
	_ = c.Step(0, 1, &msg.SeedReveal{Contribution: [32]byte{1}})
	if c.Phase() != PhasePlaying {
		t.Errorf("phase %v once the honest player revealed", c.Phase())
	}
}

func TestSyncFrequency(t *testing.T) {
	c := newPlaying(t, Config{LateGameAfter: 10 * time.Minute}, 1)
	// 30 ticks per second: the first minute is ticks [0, 1800), the late
	// game starts at tick 18000.
	for k, want := range map[uint64]bool{0: true, 30: true, 1770: true, 1800: true, 1830: false, 1920: true,
		17880: true, 17910: false, 18000: true, 18120: false, 18300: true} {
		if got := c.sync.due(c, k); got != want {
			t.Errorf("tick %d: sync %v, want %v", k, got, want)
		}
	}
	c.BoostSync(0)
	if !c.sync.due(c, 1830) {
		t.Error("tick 1830 after BoostSync: no sync request")
	}
}

// TestDesyncWaitsForEveryone: the comparison happens once every player in
// the match has reported, or once the missing one has left.
func TestDesyncWaitsForEveryone(t *testing.T) {
	c := newPlaying(t, Config{}, 1, 2, 3)
	c.Tick(c.Start() + c.TickInterval() + c.Deadline())
	if fs := frames(c); len(fs) != 1 || fs[0].Flags&msg.FlagSyncRequest == 0 {
		t.Fatalf("tick 0 frames %+v, want a sync request", fs)
	}
	_ = c.Step(c.now, 1, &msg.SyncHash{Tick: 0, Hash: 5})
	_ = c.Step(c.now, 2, &msg.SyncHash{Tick: 0, Hash: 6})
	if len(events[Desync](c)) != 0 {
		t.Fatal("desync before everyone reported")
	}
	c.Leave(c.now, 3)
	ev := events[Desync](c)
	if len(ev) != 1 || ev[0].Tick != 0 || len(ev[0].Hashes) != 2 {
		t.Fatalf("desync events %+v", ev)
	}
}

// TestRemovalOnScheduledTick: a heartbeat timeout schedules the removal
// RemovalLead ticks ahead; the player is in every frame until then and in
// none after.
func TestRemovalOnScheduledTick(t *testing.T) {
	c := newPlaying(t, Config{HeartbeatTimeout: time.Second, RemovalLead: 5}, 1, 2)
	var removedAt uint64
	for k := uint64(0); k < 60; k++ {
		due := c.Start() + time.Duration(k+1)*c.TickInterval() + c.Deadline()
		submitAt(t, c, 1, k)
		c.Tick(due)
		for _, f := range frames(c) {
			has2 := false
			for _, o := range f.Orders {
				has2 = has2 || o.Player == 2
			}
			if len(f.Removals) > 0 && removedAt == 0 {
				removedAt = f.Removals[0].AtTick
				if f.Removals[0].Player != 2 || f.Removals[0].Reason != msg.ReasonTimeout || removedAt != f.Tick+5 {
					t.Fatalf("frame %d removals %+v", f.Tick, f.Removals)
				}
			}
			if want := removedAt == 0 || f.Tick < removedAt; has2 != want {
				t.Fatalf("frame %d: player 2 present %v, removal at %d", f.Tick, has2, removedAt)
			}
		}
	}
	if removedAt == 0 {
		t.Fatal("silent player never removed")
	}
}

// TestTimingFeedbackAndMetrics: every 30 ticks each player learns how
// early its submissions arrive; its ClientMetrics land in PlayerMetrics.
func TestTimingFeedbackAndMetrics(t *testing.T) {
	c := newPlaying(t, Config{}, 1)
	cm := &msg.ClientMetrics{AvgLatencyUs: 41_000, AvgFPS: 144, ArrivalCushion: 3, TickProcessingUs: 900}
	if err := c.Step(0, 1, cm); err != nil {
		t.Fatal(err)
	}
	var fbs []msg.TimingFeedback
	for k := uint64(0); k < 63; k++ {
		submitAt(t, c, 1, k) // arrives at the window's end + 20 ms
		c.Tick(c.Start() + time.Duration(k+1)*c.TickInterval() + 20*time.Millisecond + c.TickInterval()/2)
		for _, e := range c.Ready().Messages {
			if fb, ok := e.Msg.(*msg.TimingFeedback); ok {
				if e.To != 1 || e.Broadcast {
					t.Errorf("feedback addressed to %+v", e)
				}
				fbs = append(fbs, *fb)
			}
		}
		c.Advance()
	}
	// Sent at the window's end, arriving 20 ms later, 60 ms deadline.
	want := msg.TimingFeedback{AvgArrivalDeltaUs: 40_000, RecommendedOffsetUs: 2_000 - 40_000, DeadlineUs: 60_000}
	if len(fbs) != 2 || fbs[0] != want || fbs[1] != want {
		t.Errorf("feedback %+v, want 2 × %+v", fbs, want)
	}
	m := func() PlayerMetrics { st, _ := c.Player(1); return st.Metrics }()
	if m.AvgLatencyUs != 41_000 || m.AvgFPS != 144 || m.ArrivalCushion != 3 || m.TickProcessingUs != 900 || m.LateCountWindow != 0 {
		t.Errorf("metrics %+v", m)
	}
}

// TestWindowOf compares the window arithmetic with floor division done
// the slow way, around tick 0 and far from it.
func TestWindowOf(t *testing.T) {
	tl := timeline{start: 2500 * time.Millisecond, interval: time.Second / 30}
	for _, at := range []time.Duration{0, 1, 2499999999, 2500 * time.Millisecond, 2533333333, 2533333334, time.Hour} {
		want := int64(-1 << 40)
		for k := int64(-100); k < 200_000; k++ {
			if tl.windowStart(k) <= at && at < tl.windowStart(k+1) {
				want = k
				break
			}
		}
		if got := tl.windowOf(at); got != want {
			t.Errorf("windowOf(%v) = %d, want %d", at, got, want)
		}
	}
}

// TestAdvanceKeepsOutputAfterReady: Advance releases only what the Ready
// it acknowledges held. Frames broadcast after Ready (pooled messages) and
// a removal scheduled after it wait, intact, for the next Ready.
func TestAdvanceKeepsOutputAfterReady(t *testing.T) {
	c := newPlaying(t, Config{}, 1, 2)
	due := func(k uint64) time.Duration { return c.Start() + time.Duration(k+1)*c.TickInterval() + c.Deadline() }
	c.Tick(due(0))
	rd := c.Ready()
	if len(rd.Messages) != 1 {
		t.Fatalf("Ready holds %d messages, want frame 0", len(rd.Messages))
	}
	c.Tick(due(1)) // frame 1 comes from the pool while frame 0 is out
	c.Leave(due(1), 2)
	c.Advance()
	rd = c.Ready()
	var got []string
	for _, e := range rd.Messages {
		switch m := e.Msg.(type) {
		case *msg.TickFrame:
			got = append(got, fmt.Sprintf("frame %d", m.Tick))
		case *msg.PlayerRemoved:
			got = append(got, fmt.Sprintf("removed %d", m.Player))
		}
	}
	if want := []string{"frame 1", "removed 2"}; !slices.Equal(got, want) {
		t.Fatalf("next Ready %v, want %v", got, want)
	}
	if ev := events[RemovalScheduled](c); len(ev) != 1 || ev[0].Player != 2 {
		t.Fatalf("RemovalScheduled events %+v", ev)
	}
	c.Advance()
	c.Tick(due(2))
	rd = c.Ready()
	if f := rd.Messages[0].Msg.(*msg.TickFrame); f.Tick != 2 {
		t.Fatalf("first message %+v, want frame 2", rd.Messages[0].Msg)
	}
	c.Advance()
	if c.HasReady() {
		t.Fatal("HasReady after Advance")
	}
}
