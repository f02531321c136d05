package predict_test

import (
	"errors"
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/sim/action"
)

const tick = time.Second / 60

// newServer returns a server with players 1 and 2 and its Ready drained.
func newServer(t *testing.T, cfg predict.ServerConfig) *predict.Server {
	t.Helper()
	srv := predict.NewServer(cfg, actiongame.New(action.Config{}, 1))
	for p := predict.PlayerID(1); p <= 2; p++ {
		if err := srv.Join(0, p); err != nil {
			t.Fatal(err)
		}
	}
	srv.Advance()
	return srv
}

func send(t *testing.T, srv *predict.Server, now time.Duration, from predict.PlayerID, m predict.InputMessage) error {
	t.Helper()
	b, err := m.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	return srv.Receive(now, from, b)
}

// acks returns the InputAcks of the last Ready, and advances.
func acks(t *testing.T, srv *predict.Server) []predict.InputAck {
	t.Helper()
	var out []predict.InputAck
	for _, m := range srv.Ready().Messages {
		if typ, _ := predict.TypeOf(m.Data); typ == predict.TypeInputAck {
			var a predict.InputAck
			if err := a.Parse(m.Data); err != nil {
				t.Fatal(err)
			}
			out = append(out, a)
		}
	}
	srv.Advance()
	return out
}

func TestServerRefusesSpoofedPlayer(t *testing.T) {
	srv := newServer(t, predict.ServerConfig{})
	err := send(t, srv, 0, 1, predict.InputMessage{Player: 2, Inputs: []predict.Input{{Sequence: 1, IntendedTick: 1}}})
	if !errors.Is(err, predict.ErrRejected) {
		t.Fatalf("inputs claiming another player: %v", err)
	}
	if err := srv.Receive(0, 9, []byte{0x30}); !errors.Is(err, predict.ErrUnknown) {
		t.Fatalf("unknown player: %v", err)
	}
}

// TestServerSchedulesByIntendedTick: an input waits for its intended tick,
// a duplicate is ignored, and each applied input is acknowledged with the
// tick it was applied at.
func TestServerSchedulesByIntendedTick(t *testing.T) {
	srv := newServer(t, predict.ServerConfig{})
	in := predict.InputMessage{Player: 1, Inputs: []predict.Input{{Sequence: 1, IntendedTick: 3, MoveX: 100}}}
	send(t, srv, 0, 1, in)
	send(t, srv, 0, 1, in) // a duplicate changes nothing
	srv.Tick(2 * tick)
	if a := acks(t, srv); len(a) != 0 {
		t.Fatalf("applied before its tick: %+v", a)
	}
	srv.Tick(3 * tick)
	if a := acks(t, srv); len(a) != 1 || a[0].Sequence != 1 || a[0].AppliedTick != 3 || a[0].Late {
		t.Fatalf("acks %+v", a)
	}
	if st := srv.Stats(); st.InputsApplied != 1 || st.InputsRejected != 0 {
		t.Fatalf("%+v", st)
	}
}

// TestServerLateInputs: under LateApplyNext a late input is merged into
// the next tick and acknowledged late; under LateReject it is dropped.
func TestServerLateInputs(t *testing.T) {
	for _, policy := range []predict.LatePolicy{predict.LateApplyNext, predict.LateReject} {
		srv := newServer(t, predict.ServerConfig{Late: policy})
		srv.Tick(5 * tick)
		srv.Advance()
		send(t, srv, 5*tick, 1, predict.InputMessage{Player: 1, Inputs: []predict.Input{
			{Sequence: 1, IntendedTick: 4, Actions: []predict.Action{{ID: actiongame.ActionCast, Sequence: 1}}},
			{Sequence: 2, IntendedTick: 6},
		}})
		srv.Tick(6 * tick)
		a := acks(t, srv)
		st := srv.Stats()
		switch policy {
		case predict.LateApplyNext:
			if len(a) != 1 || a[0].Sequence != 2 || !a[0].Late || st.InputsLate != 1 || st.InputsApplied != 2 {
				t.Fatalf("apply next: acks %+v stats %+v", a, st)
			}
		case predict.LateReject:
			if len(a) != 1 || a[0].Sequence != 2 || a[0].Late || st.InputsDropped != 1 {
				t.Fatalf("reject: acks %+v stats %+v", a, st)
			}
		}
	}
}

// TestServerValidation: intents out of range, unknown actions, repeated
// action sequences and inputs beyond the rate are rejected; an intended
// tick too far ahead is clamped.
func TestServerValidation(t *testing.T) {
	srv := newServer(t, predict.ServerConfig{MaxInputRate: 10, MaxAhead: 5})
	send(t, srv, 0, 1, predict.InputMessage{Player: 1, Inputs: []predict.Input{
		{Sequence: 1, IntendedTick: 1, MoveX: -128},
		{Sequence: 2, IntendedTick: 1, Actions: []predict.Action{{ID: 9, Sequence: 1}}},
		{Sequence: 3, IntendedTick: 1, Actions: []predict.Action{{ID: actiongame.ActionCast, Sequence: 4}}},
		{Sequence: 4, IntendedTick: 2, Actions: []predict.Action{{ID: actiongame.ActionCast, Sequence: 4}}},
		{Sequence: 5, IntendedTick: 1000},
	}})
	if st := srv.Stats(); st.InputsRejected != 3 || st.InputsClamped != 1 {
		t.Fatalf("%+v", st)
	}
	var burst []predict.Input
	for s := uint32(6); s < 6+20; s++ {
		burst = append(burst, predict.Input{Sequence: s, IntendedTick: 5})
	}
	send(t, srv, 0, 1, predict.InputMessage{Player: 1, Inputs: burst})
	if st := srv.Stats(); st.InputsRejected < 3+10 {
		t.Fatalf("a burst of 20 inputs at 10/s: %d rejected", st.InputsRejected-3)
	}
}

// TestServerDeltasAgainstAcknowledgedBaseline: the first snapshot is full,
// later ones are deltas against the snapshot the client acknowledged, and
// a full one comes every FullEvery ticks.
func TestServerDeltasAgainstAcknowledgedBaseline(t *testing.T) {
	srv := newServer(t, predict.ServerConfig{FullEvery: 10})
	var m predict.SnapshotMessage
	kinds := ""
	for tk := uint64(1); tk <= 12; tk++ {
		srv.Tick(time.Duration(tk) * tick)
		for _, o := range srv.Ready().Messages {
			if typ, _ := predict.TypeOf(o.Data); typ == predict.TypeSnapshot && o.To == 1 {
				if err := m.Parse(o.Data); err != nil {
					t.Fatal(err)
				}
				if m.BaselineTick == 0 {
					kinds += "F"
				} else {
					kinds += "D"
				}
			}
		}
		srv.Advance()
		send(t, srv, time.Duration(tk)*tick, 1, predict.InputMessage{Player: 1, AckedSnap: tk})
	}
	if kinds != "FDDDDDDDDDFD" {
		t.Fatalf("snapshot kinds %s", kinds)
	}
}
