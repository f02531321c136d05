package relay

import (
	"errors"
	"testing"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// TestRunAheadIsCeiling: the initial run-ahead is the deadline in ticks
// rounded up, exactly: a nanosecond under two ticks is two, two ticks is
// two, a nanosecond over is three.
func TestRunAheadIsCeiling(t *testing.T) {
	const tick = 10 * ms
	prof := QosProfile{DeadlineMax: time.Second, RunAheadMax: 255, OneWayClip: time.Second, JitterClip: time.Second}
	for deadline, want := range map[time.Duration]uint8{2*tick - 1: 2, 2 * tick: 2, 2*tick + 1: 3} {
		got := matchEnvelope([]PlayerCalibration{{OneWayP95: deadline}}, prof, tick)
		if got.InitialTickDeadline != deadline || got.SharedInitialRunAhead != want {
			t.Errorf("one-way %v: deadline %v run-ahead %d, want %v and %d", deadline, got.InitialTickDeadline, got.SharedInitialRunAhead, deadline, want)
		}
	}
}

// TestPongSample: a pong's round trip leaves out the client's holding
// time and its clock offset is NTP's midpoint estimate; a pong for a ping
// not sent yet (even echoing its zero send time), a duplicate, a wrong
// echo, a client that answers before it received and an impossible round
// trip are refused and recorded nowhere.
func TestPongSample(t *testing.T) {
	c := newCalibrator(0, 1, 3)
	c.sent, c.sentAt[0] = 1, 100*ms
	if c.pong(0, 150*ms, 1, 0, 0, 0) {
		t.Error("a pong for the ping not sent yet was taken")
	}
	if !c.pong(0, 150*ms, 0, 100*ms, 1000*ms, 1005*ms) {
		t.Fatal("an honest pong was refused")
	}
	// rtt = (150 - 100) - (1005 - 1000); offset = ((100 - 1000) + (150 - 1005)) / 2.
	if want := (pingSample{rtt: 45 * ms, offset: -877500 * time.Microsecond}); len(c.samples[0]) != 1 || c.samples[0][0] != want {
		t.Fatalf("samples %v, want [%v]", c.samples[0], want)
	}
	c.sent, c.sentAt[1] = 2, 200*ms
	for name, ok := range map[string]bool{
		"duplicate":          c.pong(0, 160*ms, 0, 100*ms, 1000*ms, 1005*ms),
		"wrong echo":         c.pong(0, 260*ms, 1, 199*ms, 1100*ms, 1101*ms),
		"sent before it got": c.pong(0, 260*ms, 1, 200*ms, 1100*ms, 1099*ms),
		"negative rtt":       c.pong(0, 210*ms, 1, 200*ms, 1100*ms, 1120*ms),
	} {
		if ok {
			t.Errorf("%s taken", name)
		}
	}
	if len(c.samples[0]) != 1 {
		t.Errorf("refused pongs recorded: %v", c.samples[0])
	}
}

// TestCalibrationFinishesWithMinPongs: once the last ping's interval is
// over, a player that answered exactly MinPongs of the pings ends
// calibration then, not at the timeout, and NextDeadline names that
// moment while the core waits for it.
func TestCalibrationFinishesWithMinPongs(t *testing.T) {
	cfg := Config{Rand: newSeededReader(1), Calibration: CalibrationConfig{Pings: 3, MinPongs: 2, Interval: 100 * ms, Timeout: 10 * time.Second}}
	c, err := New(cfg, []protocol.PlayerID{1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	answered := 0
	for now := time.Duration(0); now <= 200*ms; now += 100 * ms {
		c.Tick(now)
		for _, e := range c.Ready().Messages {
			ping, ok := e.Msg.(*msg.CalibrationPing)
			if !ok || answered == cfg.Calibration.MinPongs {
				continue
			}
			pong := &msg.CalibrationPong{Seq: ping.Seq, RelaySendUs: ping.RelaySendUs, ClientRecvUs: ping.RelaySendUs, ClientSendUs: ping.RelaySendUs}
			if err := c.Step(now+10*ms, 1, pong); err != nil {
				t.Fatal(err)
			}
			answered++
		}
		c.Advance()
	}
	if err := c.Step(250*ms, 1, &msg.CalibrationPong{Seq: 2}); !errors.Is(err, ErrBadPong) {
		t.Errorf("a pong echoing no send time: %v, want ErrBadPong", err)
	}
	if at, ok := c.NextDeadline(); !ok || at != 300*ms {
		t.Errorf("next deadline %v %v, want the last ping's interval end 300ms", at, ok)
	}
	c.Tick(300*ms - 1)
	if c.Phase() != PhaseCalibrating {
		t.Fatalf("calibration ended at %v, before the last ping's interval", c.Phase())
	}
	c.Tick(300 * ms)
	if c.Phase() == PhaseCalibrating {
		t.Error("calibration still running with MinPongs answered after the last interval")
	}
}
