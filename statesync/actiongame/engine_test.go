package actiongame_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/sim/action"
	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/actiongame"
	"github.com/tickwire/tickwire/statesync/msg"
)

// match is a state-sync room of bots playing the action game, its
// messages passed through their encodings with no delay.
type match struct {
	t       *testing.T
	now     time.Duration
	srv     *statesync.Server
	players map[uint32]*bot
	events  map[uint32][]statesync.ClientEvent
}

type bot struct {
	e   *actiongame.Engine
	c   *statesync.Client
	bot *action.Bot
}

var cfg = action.Config{TickRate: 20, ArenaSize: 96, MaxPlayers: 255}

func newMatch(t *testing.T) *match {
	return &match{t: t, srv: statesync.NewServer(statesync.Config{}, 0), players: map[uint32]*bot{},
		events: map[uint32][]statesync.ClientEvent{}}
}

func (m *match) join(id uint32) {
	e := actiongame.New(cfg, 7)
	m.players[id] = &bot{e: e, c: statesync.NewClient(statesync.ClientConfig{}, e), bot: action.NewBot(uint64(id))}
	if err := m.srv.Join(m.now, id); err != nil {
		m.t.Fatal(err)
	}
	m.players[id].c.Input(actiongame.JoinInput())
	m.pump()
}

func (m *match) pump() {
	for progress := true; progress; {
		progress = false
		for m.srv.HasReady() {
			progress = true
			rd := m.srv.Ready()
			for _, env := range rd.Messages {
				b, err := msg.Append(nil, env.Msg)
				if err != nil {
					m.t.Fatal(err)
				}
				for id, p := range m.players {
					if env.Broadcast || env.To == id {
						decoded, err := msg.Parse(b)
						if err != nil {
							m.t.Fatal(err)
						}
						_ = p.c.Step(decoded)
					}
				}
			}
			m.srv.Advance(rd)
		}
		for id, p := range m.players {
			for p.c.HasReady() {
				progress = true
				rd := p.c.Ready()
				for _, out := range rd.Messages {
					b, _ := msg.Append(nil, out)
					decoded, err := msg.Parse(b)
					if err != nil {
						m.t.Fatal(err)
					}
					_ = m.srv.Step(m.now, id, decoded)
				}
				m.events[id] = append(m.events[id], rd.Events...)
				p.c.Advance(rd)
			}
		}
	}
}

// frame lets every running bot choose an input and runs one frame.
func (m *match) frame() {
	for id, p := range m.players {
		if p.c.Running() {
			p.c.Input(actiongame.EncodeInput(nil, p.bot.Input(p.e.World(), action.PlayerID(id))))
		}
	}
	m.pump()
	for range 2 {
		m.now += 25 * time.Millisecond
		m.srv.Tick(m.now)
		m.pump()
	}
}

func (m *match) hashes() map[uint32]int {
	out := map[uint32]int{}
	for _, p := range m.players {
		out[p.c.Hash()]++
	}
	return out
}

// TestActionGameInStateSync: 40 bots play the action game through a
// state-sync room; late joiners get the verified state; a corrupted
// player's health is found, corrected, and named in the diff.
func TestActionGameInStateSync(t *testing.T) {
	m := newMatch(t)
	for id := uint32(1); id <= 40; id++ {
		m.join(id)
		m.frame()
	}
	for range 200 {
		m.frame()
	}
	if h := m.hashes(); len(h) != 1 {
		t.Fatalf("clients disagree: %v", h)
	}
	w := m.players[1].e.World()
	if n := len(w.Entities()); n < 40 {
		t.Fatalf("%d entities for 40 players", n)
	}
	// Corrupt player 9's own health in its copy of the world.
	victim := m.players[9]
	snap := victim.e.World().Snapshot(nil)
	ent, _ := victim.e.World().Player(9)
	for off := action.HeaderSize; off < len(snap); off += action.EntityRecordSize {
		e, _ := action.ParseEntity(snap[off:])
		if e.ID == ent.ID {
			snap[off+34] ^= 0x10
		}
	}
	if err := victim.e.World().Restore(snap); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		m.frame()
	}
	var diffs []string
	for _, ev := range m.events[9] {
		diffs = append(diffs, ev.Diffs...)
	}
	if len(diffs) != 1 || !strings.Contains(diffs[0], "Health") {
		t.Fatalf("diffs %q, want one naming Health", diffs)
	}
	if h := m.hashes(); len(h) != 1 {
		t.Fatalf("clients disagree after recovery: %v", h)
	}
	st := m.srv.Stats()
	t.Logf("%d entities; tiers %v; recovered %d; %q", len(w.Entities()), st.Tiers[1:], st.Recovered, diffs[0])
}

func TestInputRoundTrip(t *testing.T) {
	in := action.Input{MoveX: -5, MoveY: 127, Jump: true, Cast: true, Yaw: 40000, Pitch: -300, CastSeq: 77}
	got, kind := actiongame.DecodeInput(actiongame.EncodeInput(nil, in))
	if got != in || kind != actiongame.KindInput {
		t.Fatalf("%+v (%d), want %+v", got, kind, in)
	}
}
