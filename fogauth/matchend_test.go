package fogauth

import (
	"bytes"
	"testing"
	"time"

	"github.com/tickwire/tickwire/protocol"
)

// TestMatchEndOnOwnSchedule: when a player's match ends depends only on
// its own view. Twin rooms where player 1 sees the same: in twin B
// player 2 has a hidden tank more that keeps moving, and player 2's
// client acknowledges nothing (in twin A, everything at once). The room
// finishes at tick 30. Player 1 gets the same bytes every tick in both
// twins, its MatchEnd among them at the same tick, stamped with the last
// tick simulated (30), and nothing after it; player 2's MatchEnd comes
// only with EndAll (the embedder's settle timeout). (MatchEnd once waited
// for every seat's acknowledgements and carried the tick it went out.)
func TestMatchEndOnOwnSchedule(t *testing.T) {
	type run struct {
		p1   [][]byte
		end  MatchEnd
		at   int // tick player 1's MatchEnd came
		p2At int
	}
	twin := func(hidden bool, p2acks bool) run {
		ents := []protocol.EntityState{
			{ID: 1, Type: 1, Owner: 1, Pos: cellPos(2, 2), Health: 50, HealthMax: 50},
			tank(2, 5, 5),
		}
		if hidden {
			ents = append(ents, tank(3, 20, 9))
		}
		g := &scriptGame{ents: ents, move: func(tick uint64, ents []protocol.EntityState) {
			ents[1].Pos = cellPos(5, 5+int(tick%3))
			if len(ents) > 2 {
				ents[2].Pos = cellPos(20, 9+int(tick%7))
			}
		}}
		r, err := New(Config{}, g, 0)
		if err != nil {
			t.Fatal(err)
		}
		cls := []*Client{NewClient(1), NewClient(2)}
		for i := range cls {
			if err := r.AddClient(ClientID(i+1), protocol.PlayerID(i+1)); err != nil {
				t.Fatal(err)
			}
		}
		var out run
		for tick := 1; tick <= 80; tick++ {
			if tick == 31 {
				r.Finish()
			}
			if err := r.RunDue(time.Duration(tick) * r.cfg.TickInterval()); err != nil {
				t.Fatal(err)
			}
			var b []byte
			for _, m := range r.Ready().Messages {
				if m.To == 1 {
					if out.at != 0 {
						t.Fatalf("tick %d: player 1 was sent a message after its MatchEnd", tick)
					}
					b = append(b, m.Data...)
				}
				if m.Reliable && m.Data[0] == TypeMatchEnd {
					e, err := ParseMatchEnd(m.Data)
					if err != nil {
						t.Fatal(err)
					}
					if m.To == 1 {
						out.end, out.at = e, tick
					} else {
						out.p2At = tick
					}
					continue
				}
				if err := cls[m.To-1].Receive(m.Data); err != nil {
					t.Fatal(err)
				}
			}
			r.Advance()
			out.p1 = append(out.p1, b)
			for i, cl := range cls {
				_, ack, err := cl.Flush()
				if err != nil {
					t.Fatal(err)
				}
				if ack != nil && (i == 0 || p2acks) {
					if err := r.Step(ClientID(i+1), ack); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		r.EndAll()
		for _, m := range r.Ready().Messages {
			if m.To == 2 && m.Data[0] == TypeMatchEnd {
				out.p2At = -1
			}
		}
		r.Advance()
		if !r.Ended() {
			t.Fatal("EndAll left a client without its MatchEnd")
		}
		return out
	}
	a, b := twin(false, true), twin(true, false)
	for tick := range a.p1 {
		if !bytes.Equal(a.p1[tick], b.p1[tick]) {
			t.Fatalf("tick %d: player 1 received different bytes in the twins:\n A %x\n B %x", tick+1, a.p1[tick], b.p1[tick])
		}
	}
	if a.at == 0 || a.at != b.at || a.end != b.end || a.end.Tick != 30 {
		t.Fatalf("player 1's MatchEnd: tick %d %+v in A, tick %d %+v in B; want the same, stamped 30", a.at, a.end, b.at, b.end)
	}
	if a.p2At <= 0 || b.p2At != -1 {
		t.Errorf("player 2's MatchEnd: at %d in A (acknowledging), %d in B (-1: only at EndAll)", a.p2At, b.p2At)
	}
}
