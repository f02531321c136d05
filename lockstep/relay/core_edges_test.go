package relay

import (
	"errors"
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// TestNewConfigBounds: New accepts every limit exactly and refuses one
// step past it (debug level, player count, a tick interval that must
// exceed the skew budget, a profile whose minimum equals its maximum,
// the late-rate smoothing at one).
func TestNewConfigBounds(t *testing.T) {
	players := func(n int) []protocol.PlayerID {
		ids := make([]protocol.PlayerID, n)
		for i := range ids {
			ids[i] = protocol.PlayerID(i + 1)
		}
		return ids
	}
	equal := Ranked()
	equal.DeadlineMin, equal.RunAheadMin, equal.EWMAAlphaQ15 = equal.DeadlineMax, equal.RunAheadMax, 32768
	for _, tc := range []struct {
		name string
		cfg  Config
		n    int
		ok   bool
	}{
		{"debug level at its maximum", Config{DebugLevel: msg.MaxDebugLevel}, 2, true},
		{"debug level past it", Config{DebugLevel: msg.MaxDebugLevel + 1}, 2, false},
		{"MaxPlayers players", Config{}, MaxPlayers, true},
		{"one more", Config{}, MaxPlayers + 1, false},
		{"tick interval just over the skew budget", Config{TickRate: 199, SkewBudget: 5 * time.Millisecond}, 2, true},
		{"tick interval equal to the skew budget", Config{TickRate: 200, SkewBudget: 5 * time.Millisecond}, 2, false},
		{"profile minimums equal to maximums", Config{Profile: equal}, 2, true},
	} {
		tc.cfg.Rand = newSeededReader(1)
		_, err := New(tc.cfg, players(tc.n), 0)
		if tc.ok && err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if !tc.ok && !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err %v, want ErrConfig", tc.name, err)
		}
	}
	over := Ranked()
	over.EWMAAlphaQ15 = 32769
	if _, err := New(Config{Profile: over, Rand: newSeededReader(1)}, players(2), 0); !errors.Is(err, ErrConfig) {
		t.Errorf("smoothing over one: err %v, want ErrConfig", err)
	}
}

// TestHeardKeepsPlayerAlive: a transport keepalive moves the player's
// LastHeard to now; one from a stranger changes nothing.
func TestHeardKeepsPlayerAlive(t *testing.T) {
	c := newPlaying(t, Config{}, 1, 2)
	c.Heard(10*time.Millisecond, 1)
	c.Heard(20*time.Millisecond, 9)
	one, _ := c.Player(1)
	two, _ := c.Player(2)
	if one.LastHeard != 10*time.Millisecond || two.LastHeard != 0 {
		t.Errorf("LastHeard: player 1 %v (want 10ms), player 2 %v (want 0)", one.LastHeard, two.LastHeard)
	}
}

// TestPoolReleaseKeepsLaterItems: releasing the first n items handed out
// keeps the ones handed out after them in use: the pool never hands one
// of those out again before it too is released.
func TestPoolReleaseKeepsLaterItems(t *testing.T) {
	var p pool[int]
	a, b, c := p.get(), p.get(), p.get()
	*a, *b, *c = 1, 2, 3
	p.release(1)
	d, e := p.get(), p.get()
	if d == b || d == c || e == b || e == c {
		t.Fatal("an item still in use handed out again")
	}
	if d != a || *b != 2 || *c != 3 {
		t.Errorf("the released item not reused first, or live items changed: %d %d", *b, *c)
	}
	p.release(4)
	if p.used != 0 {
		t.Errorf("%d in use after releasing all", p.used)
	}
}

// TestSubmitNewestOpenTick: a submission for the newest open tick is
// taken; one for the tick after it is refused with ErrTick.
func TestSubmitNewestOpenTick(t *testing.T) {
	c := newPlaying(t, Config{}, 1, 2)
	now := c.Start() + 5*c.TickInterval()/2
	c.Tick(now)
	newest := uint64(c.lastOpenTick())
	if err := c.Step(now, 1, &msg.OrderSubmit{Tick: newest, SentUs: durUs(now)}); err != nil {
		t.Errorf("submission for the newest open tick %d: %v", newest, err)
	}
	if err := c.Step(now, 2, &msg.OrderSubmit{Tick: newest + 1, SentUs: durUs(now)}); !errors.Is(err, ErrTick) {
		t.Errorf("submission for tick %d past the newest open: %v, want ErrTick", newest+1, err)
	}
}

// TestStrikeForgivenAfterDecayAfter: every DecayAfter on-time
// submissions in a row forgive one strike, not one sooner.
func TestStrikeForgivenAfterDecayAfter(t *testing.T) {
	c := newPlaying(t, Config{Strikes: StrikeConfig{DecayAfter: 3}}, 1, 2)
	c.player(1).state.Strikes = 2
	for k, want := range []int{2, 2, 1, 1, 1, 0, 0} {
		submitAt(t, c, 1, uint64(k))
		if st, _ := c.Player(1); st.Strikes != want {
			t.Fatalf("after %d on-time submissions: %d strikes, want %d", k+1, st.Strikes, want)
		}
	}
}

// TestNoFeedbackWithoutSubmissions: a QoS window's TimingFeedback goes
// only to the players whose submissions it measured; a player that sent
// none gets no advice made of nothing.
func TestNoFeedbackWithoutSubmissions(t *testing.T) {
	c := newPlaying(t, Config{}, 1, 2)
	to := map[protocol.PlayerID]int{}
	for k := uint64(0); k < 63; k++ {
		submitAt(t, c, 1, k)
		c.Tick(c.Start() + time.Duration(k+1)*c.TickInterval() + 20*time.Millisecond + c.TickInterval()/2)
		for _, e := range c.Ready().Messages {
			if _, ok := e.Msg.(*msg.TimingFeedback); ok {
				to[e.To]++
			}
		}
		c.Advance()
	}
	if to[1] != 2 || to[2] != 0 {
		t.Errorf("feedbacks by player %v, want two to player 1 and none to the silent player 2", to)
	}
}

// TestStallRuleBounds: a late submission exactly at the jitter envelope
// is jitter and starts no stall; one a nanosecond beyond starts one,
// dated from when it was expected. A stall is a strike only once it
// lasted longer than its allowance, not at exactly the allowance.
func TestStallRuleBounds(t *testing.T) {
	c := newPlaying(t, Config{}, 1, 2)
	c.Tick(time.Second)
	p := c.player(1)
	const env = 20 * time.Millisecond
	if c.stallUnexplained(p, env, env) || p.stalled {
		t.Fatal("a delay equal to the envelope started a stall")
	}
	c.stallUnexplained(p, env+1, env)
	if !p.stalled || p.stallFrom != c.now-env-1 {
		t.Fatalf("a delay past the envelope: stalled %v from %v, want from %v", p.stalled, p.stallFrom, c.now-env-1)
	}
	p.stallFrom = c.now - p.stallAllowance
	if c.stallUnexplained(p, 0, env) {
		t.Error("a stall of exactly its allowance counted")
	}
	p.stallFrom--
	if !c.stallUnexplained(p, 0, env) {
		t.Error("a stall past its allowance not counted")
	}
}
