package predict_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/sim/action"
)

// heard is one message a client received, and when.
type heard struct {
	at   time.Duration
	data []byte
}

// recorder is a Network that records what it delivers.
type recorder struct {
	predict.Network
	got []heard
}

func (r *recorder) Poll(now time.Duration, deliver func([]byte)) error {
	return r.Network.Poll(now, func(m []byte) {
		r.got = append(r.got, heard{now, slices.Clone(m)})
		deliver(m)
	})
}

// recording is what player 1 of a two-player room received over 2 s at
// 60 Hz and 60 ms RTT: a real server's stream to mutate.
var recording = sync.OnceValue(func() []heard {
	room := newSimRoom(predict.ServerConfig{}, actiongame.New(action.Config{}, seed))
	var sessions []*predict.Session
	var intents []predict.IntentFunc
	var rec *recorder
	for p := predict.PlayerID(1); p <= 2; p++ {
		conn, _ := room.connect(0, p, impairment{delay: 30 * time.Millisecond}, uint64(p))
		c := predict.NewClient(predict.ClientConfig{}, actiongame.New(action.Config{}, 0))
		var net predict.Network = conn
		if p == 1 {
			rec = &recorder{Network: conn}
			net = rec
		}
		sessions = append(sessions, &predict.Session{Client: c, Net: net})
		intents = append(intents, botIntent(c, uint64(p)))
	}
	for now := time.Duration(0); now < 2*time.Second; now += 2 * time.Millisecond {
		for i, s := range sessions {
			s.Step(now, intents[i])
		}
	}
	return rec.got
})

// FuzzClientReceive drives a client's receive path with a real server's
// stream, lost, duplicated, reordered and corrupted as the fuzzer says
// (the reliable lane's messages stay in order, as the transport keeps
// them), while the client predicts with its own bot. Oracle: no panic; no
// server event id plays twice; no effect plays more often than the server
// sent it under distinct ids (once if only predicted); the client's
// memory of effects stays within its bound.
func FuzzClientReceive(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 2, 0, 3, 0, 0, 4, 5, 1, 1, 2, 2, 3, 3})
	f.Add([]byte{3, 3, 3, 3, 1, 1, 1, 1, 0, 2, 0, 2, 0, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		rec := recording()
		const memory = 64
		c := predict.NewClientFor(predict.ClientConfig{EffectMemory: memory}, func(rate int) predict.Game {
			return actiongame.New(action.Config{TickRate: rate}, 0)
		})
		intent := botIntent(c, 7)
		var held []heard // unreliable messages held back (reordered)
		var played []predict.Event
		serverIDs := map[effectID]map[uint64]bool{}
		note := func(m []byte) {
			typ, _ := predict.TypeOf(m)
			var evs []predict.Event
			switch typ {
			case predict.TypeEvent:
				var e predict.EventMessage
				if e.Parse(m) == nil {
					evs = append(evs, e.Event)
				}
			case predict.TypeSnapshot:
				var s predict.SnapshotMessage
				if s.Parse(m) == nil {
					evs = s.Events
				}
			}
			for i := range evs {
				k := idOf(&evs[i])
				if serverIDs[k] == nil {
					serverIDs[k] = map[uint64]bool{}
				}
				serverIDs[k][evs[i].ID] = true
			}
		}
		deliver := func(now time.Duration, m []byte) {
			note(m)
			c.Receive(now, m)
		}
		op := func(i int) byte {
			if len(ops) == 0 {
				return 0
			}
			return ops[i%len(ops)]
		}
		for i, h := range rec {
			typ, _ := predict.TypeOf(h.data)
			reliable := typ == predict.TypeHello || typ == predict.TypeEvent
			switch o := op(i); {
			case reliable || o%6 == 0: // deliver
				deliver(h.at, h.data)
				if o%6 == 5 {
					deliver(h.at, h.data) // duplicated
				}
			case o%6 == 1: // lost
			case o%6 == 2: // duplicated
				deliver(h.at, h.data)
				deliver(h.at, h.data)
			case o%6 == 3: // held back, delivered later
				held = append(held, h)
			case o%6 == 4: // corrupted
				m := slices.Clone(h.data)
				m[int(o)%len(m)] ^= o
				deliver(h.at, m)
			default: // the held-back ones arrive, newest first
				for j := len(held) - 1; j >= 0; j-- {
					deliver(h.at, held[j].data)
				}
				held = held[:0]
				deliver(h.at, h.data)
			}
			c.Update(h.at, intent)
			c.Advance()
			played = append(played, c.Effects()...)
			if n := c.Telemetry().EffectsRemembered; n > memory {
				t.Fatalf("%d effects remembered, bound %d", n, memory)
			}
		}
		fired := map[effectID]int{}
		ids := map[uint64]bool{}
		for i := range played {
			e := &played[i]
			if e.ActionSeq == 0 {
				if ids[e.ID] {
					t.Fatalf("event #%d played twice", e.ID)
				}
				ids[e.ID] = true
				continue
			}
			k := idOf(e)
			fired[k]++
			if fired[k] > max(1, len(serverIDs[k])) {
				t.Fatalf("effect %+v played %d times, the server sent it under %d ids", k, fired[k], len(serverIDs[k]))
			}
		}
	})
}
