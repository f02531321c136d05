package predict_test

import (
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/sim/action"
)

// effectID is an effect as the oracle knows it: the action that caused it
// and what happened.
type effectID struct {
	player predict.PlayerID
	action uint32
	kind   predict.EventKind
	typ    uint8
	target predict.EntityID
}

func idOf(e *predict.Event) effectID {
	return effectID{e.Player, e.ActionSeq, e.Kind, e.Type, e.Target}
}

// checkExactlyOnce checks one client's played effects against the events
// the server sent it: no effect plays twice; every event of an action the
// server sent up to tick `through` played once (predicted or heard);
// every event no action caused played once, by its server id. It returns
// the number of played action effects the server never had (predicted
// effects the server's world did not confirm).
func checkExactlyOnce(t *testing.T, who int, played []predict.Event, sent []predict.Event, through uint64) (unconfirmed int) {
	t.Helper()
	fired := map[effectID]int{}
	byID := map[uint64]int{}
	for i := range played {
		e := &played[i]
		if e.ActionSeq == 0 {
			byID[e.ID]++
			if byID[e.ID] > 1 {
				t.Fatalf("client %d: event #%d (%v) played %d times", who, e.ID, e.Kind, byID[e.ID])
			}
			continue
		}
		fired[idOf(e)]++
		if n := fired[idOf(e)]; n > 1 {
			t.Fatalf("client %d: effect %+v played %d times", who, idOf(e), n)
		}
	}
	server := map[effectID]bool{}
	for i := range sent {
		e := &sent[i]
		if e.Tick > through {
			continue
		}
		if e.ActionSeq == 0 {
			if byID[e.ID] != 1 {
				t.Fatalf("client %d: server event #%d (%v at tick %d) played %d times", who, e.ID, e.Kind, e.Tick, byID[e.ID])
			}
			continue
		}
		server[idOf(e)] = true
		if fired[idOf(e)] != 1 {
			t.Fatalf("client %d: server effect %+v at tick %d played %d times", who, idOf(e), e.Tick, fired[idOf(e)])
		}
	}
	for k := range fired {
		if !server[k] {
			unconfirmed++
		}
	}
	return unconfirmed
}

// TestEffectsExactlyOnceUnderLossBursts: with 2% loss and 200 ms bursts
// in both directions (casts whose inputs arrive late, snapshots and acks
// lost, events retransmitted), every effect plays exactly once on every
// client, counted against the events the server sent: a predicted spawn is
// not played again when a replay recreates it after its input finally
// arrives, nor when the server's event comes.
func TestEffectsExactlyOnceUnderLossBursts(t *testing.T) {
	d := 40 * time.Second
	if testing.Short() {
		d = 15 * time.Second
	}
	imp := impairment{delay: 50 * time.Millisecond, jitter: 10 * time.Millisecond, loss: 0.02,
		burst: 200 * time.Millisecond, burstEvery: 1500 * time.Millisecond}
	for _, late := range []predict.LatePolicy{predict.LateApplyNext, predict.LateReject} {
		run := playSim(t, 4, imp, d, predict.ServerConfig{Late: late}, action.Config{})
		spawns, unconfirmed := 0, 0
		for i, c := range run.clients {
			sent := run.room.events[predict.PlayerID(i+1)]
			unconfirmed += checkExactlyOnce(t, i+1, run.effects[i], sent, c.AnchorTick()-60)
			for _, e := range run.effects[i] {
				if e.Kind == predict.EventSpawn && e.Player == c.Player() {
					spawns++
				}
			}
			if tel := c.Telemetry(); tel.EffectsRemembered > 200 {
				t.Fatalf("client %d remembers %d effects", i+1, tel.EffectsRemembered)
			}
		}
		st := run.room.srv.Stats()
		t.Logf("late policy %d: %d own spawns played, %d effects the server did not confirm, server: %d late %d dropped", late, spawns, unconfirmed, st.InputsLate, st.InputsDropped)
		if spawns < int(2*d.Seconds()) || st.InputsLate+st.InputsDropped == 0 {
			t.Fatalf("the bursts made no input late (%d late, %d dropped) or nobody cast (%d)", st.InputsLate, st.InputsDropped, spawns)
		}
	}
}
