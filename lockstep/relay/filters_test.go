package relay

import (
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

func TestOrderBudget(t *testing.T) {
	b := OrderBudget{Tokens: 128, RefillPerTick: 16, BurstCap: 128}
	if got := b.TryConsume(200); got != 128 || b.Tokens != 0 {
		t.Fatalf("burst: took %d, %d left", got, b.Tokens)
	}
	b.Tick()
	if got := b.TryConsume(20); got != 16 {
		t.Errorf("after one tick: took %d, want 16", got)
	}
	for range 20 {
		b.Tick()
	}
	if b.Tokens != 128 {
		t.Errorf("refill capped at %d, want 128", b.Tokens)
	}
}

func TestByteBucket(t *testing.T) {
	b := ByteBucket{Tokens: 100, PerTick: 10, Burst: 100}
	if !b.TryConsume(100) || b.TryConsume(1) {
		t.Fatal("bucket of 100 bytes")
	}
	b.Tick()
	if b.TryConsume(11) || !b.TryConsume(10) {
		t.Error("one tick adds 10 bytes")
	}
}

func manyOrders(id protocol.PlayerID, n int) []protocol.TimestampedOrder {
	os := make([]protocol.TimestampedOrder, n)
	for i := range os {
		os[i] = move(id, uint32(i))
	}
	return os
}

func drops(c *Core) map[DropReason]int {
	out := map[DropReason]int{}
	for _, e := range events[OrdersDropped](c) {
		out[e.Reason] += e.Count
	}
	return out
}

// TestRateControlLayers: the order budget lets a burst of 128 through and
// then 16 a tick; with a budget out of the way the hard ceiling keeps 256
// of a tick's orders; the bandwidth throttle drops an oversized
// submission whole.
func TestRateControlLayers(t *testing.T) {
	c := newPlaying(t, Config{}, 1)
	submitAt(t, c, 1, 0, manyOrders(1, 200)...)
	if d := drops(c); d[DropBudget] != 72 || len(d) != 1 {
		t.Errorf("burst of 200: drops %v, want 72 over budget", d)
	}
	c.Tick(c.Start() + c.TickInterval() + c.Deadline()) // tick 0 closes: +16 tokens
	c.Ready()
	c.Advance()
	submitAt(t, c, 1, 1, manyOrders(1, 20)...)
	if d := drops(c); d[DropBudget] != 4 {
		t.Errorf("second burst: drops %v, want 4 over budget", d)
	}

	c = newPlaying(t, Config{Rate: RateConfig{RefillPerTick: 1000, BurstCap: 1000, BytesPerTick: 1 << 20, BytesBurst: 1 << 20}}, 1)
	submitAt(t, c, 1, 0, manyOrders(1, 200)...)
	submitAt(t, c, 1, 0, manyOrders(1, 100)...)
	if d := drops(c); d[DropCeiling] != 44 {
		t.Errorf("300 orders in a tick: drops %v, want 44 over the ceiling", d)
	}
	c.Tick(c.Start() + c.TickInterval() + c.Deadline())
	if fs := frames(c); len(fs) != 1 || len(fs[0].Orders) != 256 {
		t.Errorf("tick 0 carries %d orders, want 256", len(fs[0].Orders))
	}

	c = newPlaying(t, Config{Rate: RateConfig{BytesPerTick: 100, BytesBurst: 500}}, 1)
	submitAt(t, c, 1, 0, manyOrders(1, 40)...) // 640 bytes
	if d := drops(c); d[DropBandwidth] != 40 {
		t.Errorf("oversized submission: drops %v", d)
	}
}

func TestValidation(t *testing.T) {
	c := newPlaying(t, Config{}, 1, 2)
	big := protocol.TimestampedOrder{Player: 1, Order: protocol.Move{Units: make([]protocol.EntityID, 10_000)}}
	submitAt(t, c, 1, 0, move(2, 0), big, move(1, 5))
	if d := drops(c); d[DropInvalid] != 2 {
		t.Errorf("drops %v, want 2 invalid (another's order, too many units)", d)
	}
}

// TestNormalizationHonest: an honest client's hints survive normalisation
// exactly.
func TestNormalizationHonest(t *testing.T) {
	c := newPlaying(t, Config{}, 1)
	for k := uint64(0); k < 5; k++ {
		submitAt(t, c, 1, k, move(1, uint32(k)*1000), move(1, 33_000))
	}
	c.Tick(c.Start() + 5*c.TickInterval() + c.Deadline())
	for _, f := range frames(c) {
		if got := fmtOrders(f.Orders); got != fmtOrders([]protocol.TimestampedOrder{move(1, uint32(f.Tick)*1000), move(1, 33_000)}) {
			t.Errorf("tick %d: %s", f.Tick, got)
		}
	}
	if st, _ := c.Player(1); st.Suspicious != 0 {
		t.Errorf("%d suspicious claims from an honest client", st.Suspicious)
	}
}

// TestNormalizationClamps: a hint past the window's end stays inside the
// window, and a send stamp claiming a departure long before the arrival is
// pulled back to what the path allows and counted.
func TestNormalizationClamps(t *testing.T) {
	c := newPlaying(t, Config{}, 1, 2)
	submitAt(t, c, 1, 0, move(1, 90_000)) // past the 33,333 µs window
	end := c.Start() + c.TickInterval()
	early := &msg.OrderSubmit{Tick: 0, SentUs: durUs(end - 150*ms), Orders: []protocol.TimestampedOrder{move(2, 0)}}
	if err := c.Step(end+20*ms, 2, early); err != nil {
		t.Fatal(err)
	}
	if ev := events[Suspicious](c); len(ev) != 1 || ev[0].Player != 2 {
		t.Errorf("suspicious events %+v", ev)
	}
	c.Tick(end + c.Deadline())
	fs := frames(c)
	if len(fs) != 1 {
		t.Fatalf("frames %+v", fs)
	}
	for _, o := range fs[0].Orders {
		if o.SubTickTime >= uint32(c.TickInterval()/time.Microsecond) {
			t.Errorf("order %s outside the window", fmtOrders([]protocol.TimestampedOrder{o}))
		}
		// Sent at most one-way + envelope before its arrival: the claim
		// of the window's start becomes a time near its end.
		if o.Player == 2 && o.SubTickTime < 20_000 {
			t.Errorf("forged claim kept at %d µs", o.SubTickTime)
		}
	}
}

func TestRobustEWMA(t *testing.T) {
	var e robustEWMA
	now := time.Duration(0)
	feed := func(x time.Duration, n int) {
		for range n {
			now += 33 * ms
			e.observe(now, x, 5*ms)
		}
	}
	feed(10*ms, 50)
	if e.Mean != 10*ms {
		t.Fatalf("mean %v", e.Mean)
	}
	feed(500*ms, 1)
	if e.Mean != 10*ms {
		t.Errorf("one outlier moved the mean to %v", e.Mean)
	}
	// A lasting step of +60 ms (a route change) is followed within about
	// a second.
	feed(70*ms, 40)
	if e.Mean < 65*ms || e.Mean > 75*ms {
		t.Errorf("mean %v after a lasting step to 70ms", e.Mean)
	}
}

// TestRobustEWMALearnsJitter: when a quiet path turns jittery the
// deviation grows until the jitter is inside the envelope.
func TestRobustEWMALearnsJitter(t *testing.T) {
	var e robustEWMA
	e.seed(0, 0)
	now := time.Duration(0)
	inside := 0
	for i := range 300 {
		now += 33 * ms
		x := time.Duration((i*7919)%60) * ms // spread over 0-60 ms
		if e.observe(now, x, 5*ms) && i >= 200 {
			inside++
		}
	}
	if inside < 90 {
		t.Errorf("%d of the last 100 samples inside the envelope (dev %v)", inside, e.Dev)
	}
}

// TestFilterChainConfigurable: the chain is what Config.Filters says; a
// replay hook after rate control sees exactly what is forwarded, and a
// chain without Forwarding forwards nothing.
func TestFilterChainConfigurable(t *testing.T) {
	var recorded []int
	hook := ReplayHook(func(b *Batch) { recorded = append(recorded, b.Kept()) })
	chain := []Filter{Validation(), Normalization(), RateControl(), hook, AntiCheat(), Forwarding()}
	c := newPlaying(t, Config{Filters: chain}, 1)
	submitAt(t, c, 1, 0, manyOrders(1, 130)...)
	if len(recorded) != 1 || recorded[0] != 128 {
		t.Errorf("hook saw %v, want [128]", recorded)
	}
	var names []string
	for _, f := range chain {
		names = append(names, f.Name())
	}
	if got := strings.Join(names, " → "); got != "validate → normalize → rate → record → anticheat → forward" {
		t.Errorf("chain %s", got)
	}

	c = newPlaying(t, Config{Filters: []Filter{Validation(), Normalization()}}, 1)
	submitAt(t, c, 1, 0, move(1, 0))
	c.Tick(c.Start() + c.TickInterval() + c.Deadline())
	if fs := frames(c); len(fs) != 1 || fmtOrders(fs[0].Orders) != "1:Idle" {
		t.Errorf("without Forwarding: %+v", fs)
	}
}
