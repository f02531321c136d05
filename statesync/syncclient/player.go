package syncclient

import (
	"context"
	"encoding/json"
	"time"

	"github.com/tickwire/tickwire/internal/botpool"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/sim/action"
	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/actiongame"
	"github.com/tickwire/tickwire/statesync/host"
	"github.com/tickwire/tickwire/statesync/hostile"
	ssmsg "github.com/tickwire/tickwire/statesync/msg"
	"github.com/tickwire/tickwire/transport"
)

// gameRules are the action game's rules in state-sync rooms: 20 frames
// a second, an arena large enough for a crowd, up to 255 players.
func gameRules() action.Config {
	return action.Config{TickRate: 20, ArenaSize: 160, MaxPlayers: 255}
}

// gameSeed seeds every room's world (all clients must agree on it).
const gameSeed = 20261123

// Plan is what a bot does to itself during the match.
type Plan struct {
	CorruptAt uint32   // frame after which it corrupts its state (0: never)
	ChurnAt   []uint32 // frames at which it leaves for away and comes back
	// Hostile: it plays honestly and lies on top, with every tactic of
	// package statesync/hostile.
	Hostile bool
}

// away is how long a churned bot stays away: 20 frames.
const away = time.Second

// player is one bot client of a state-sync room: the statesync.Client
// core with the action game, played by action.Bot, over a transport.Conn.
type player struct {
	conn  *transport.Conn
	id    uint32
	ticks uint32
	plan  Plan

	eng    *actiongame.Engine
	core   *statesync.Client
	bot    *action.Bot
	reasm  ssmsg.Reassembler
	outbox host.Outbox
	liar   *hostile.Liar // a hostile bot's lies
	joined bool          // its JoinInput went out since it last synced
	churn  bool          // it left, to come back over a new connection
	last   uint32
	// helloAt is when it dialed to come back, until it synced.
	helloAt time.Time
	// desynced: named desynced at desyncAt and not yet recovered.
	desynced   bool
	desyncAt   uint32
	repairedAt uint32 // the frame of its last correction or full state
	// end keeps the match's certified result; finished, if set, is told
	// when the bot is done, before it waits for that result.
	end      join.Ending
	finished func()

	res Result
}

// Result is what a bot reports.
type Result struct {
	ID         uint32
	Frame      uint32 // the last frame simulated
	Hash       uint32 // after frame Ticks
	HasHash    bool
	Up, Down   int
	Start, End time.Time
	Agreed     int
	Disagreed  int
	Desyncs    int // episodes: named desynced after being in sync
	Recovered  int
	Corrupted  bool
	Hostile    bool
	CoreID     uint32 // the id its room's core knows it by
	RecoveryF  []uint32
	RecoveryB  []int
	LateJoins  []time.Duration
	// Certificate is the match's certified result the server sent when
	// the match ended, if one came.
	Certificate json.RawMessage
	Err         error
}

// join joins room over conn with server/join's Join and readies the bot
// to play there with a new game and core, as a client that never played:
// at the start of the match in its seat, or later in the seat of a
// player who left (the room's late-join path). A full room is
// join.ErrRoomFull (a churned bot's seat is free once the server saw its
// connection end).
func (p *player) join(ctx context.Context, conn *transport.Conn, roomName string, roomSize int) error {
	seat, err := join.Join(ctx, conn, join.Request{Room: roomName, RoomSize: roomSize, NetworkModel: room.StateSync})
	if err != nil {
		return err
	}
	p.conn, p.id = conn, uint32(seat.Player)
	p.fresh()
	p.res.ID = p.id
	if p.res.Start.IsZero() {
		p.res.Start = time.Now()
	}
	return nil
}

// fresh gives the bot a new game and core, as a client that never played.
func (p *player) fresh() {
	p.eng = actiongame.New(gameRules(), gameSeed)
	p.core = statesync.NewClient(statesync.ClientConfig{}, p.eng)
	p.bot = action.NewBot(uint64(p.id) * 7919)
	p.joined, p.last = false, 0
	p.res.Hostile = p.plan.Hostile
	if p.plan.Hostile {
		p.liar = &hostile.Liar{Tactics: hostile.All, Engine: p.eng, Client: p.core}
	}
}

// play runs the bot on its connection until it has simulated frame
// p.ticks or its plan makes it leave, then closes the connection. It
// returns whether the bot left to come back. Once the server has sent a
// first message, join.DefaultIdleTimeout without another ends the play
// (a state-sync server sends a Tick every frame).
func (p *player) play(ctx context.Context) (churned bool) {
	defer p.conn.Close()
	idle := join.WatchIdle(p.conn, 0)
	defer idle.Stop()
	p.churn = false
	for !p.churn {
		tm, err := p.conn.Receive(ctx)
		if err != nil {
			p.res.Err = idle.Err(err)
			break
		}
		idle.Arm()
		p.res.Down += len(tm.Data)
		if p.end.Keep(tm.Data) {
			continue
		}
		m, err := p.reasm.Parse(tm.Data)
		if err != nil || m == nil {
			continue
		}
		_ = p.core.Step(m) // a message the core refuses changes nothing; it may still have queued output
		if tick, ok := m.(*ssmsg.Tick); ok && p.liar != nil {
			for _, lie := range p.liar.OnTick(tick) {
				p.send(lie)
			}
		}
		p.res.CoreID = p.core.ID()
		p.afterStep()
		p.flush()
		if h, ok := p.core.HashAt(p.ticks); ok && p.core.Frame() >= p.ticks {
			p.res.Hash, p.res.HasHash = h, true
			p.leave(ctx)
			break
		}
	}
	p.res.End = time.Now()
	p.res.Frame = p.core.Frame()
	return p.churn
}

// leave tells the server the bot is done and waits for the match's
// certified result (the match ends when its last player goes).
func (p *player) leave(ctx context.Context) {
	if p.finished != nil {
		p.finished()
	}
	p.res.Certificate = botpool.Leave(ctx, func(ctx context.Context) ([]byte, error) { return p.end.Leave(ctx, p.conn) })
}

// afterStep acts on the frames the core simulated: the plan, then the
// bot's input for the next frame.
func (p *player) afterStep() {
	f := p.core.Frame()
	if !p.core.Running() || f == p.last {
		return
	}
	prev := p.last
	p.last = f
	if !p.joined {
		p.core.Input(actiongame.JoinInput())
		p.joined = true
		return
	}
	if p.plan.CorruptAt != 0 && prev < p.plan.CorruptAt && f >= p.plan.CorruptAt {
		p.res.Corrupted = p.corrupt()
	}
	for _, at := range p.plan.ChurnAt {
		if prev < at && f >= at {
			p.send(&ssmsg.Bye{})
			p.churn = true
			return
		}
	}
	p.core.Input(actiongame.EncodeInput(nil, p.bot.Input(p.eng.World(), action.PlayerID(p.id))))
}

// corrupt changes the health of the bot's own player (or any entity) in
// its copy of the world, as a bug or a bad memory cell would.
func (p *player) corrupt() bool {
	w := p.eng.World()
	snap := w.Snapshot(nil)
	if len(snap) <= action.HeaderSize {
		return false
	}
	off := action.HeaderSize
	if me, ok := w.Player(action.PlayerID(p.id)); ok {
		for o := action.HeaderSize; o < len(snap); o += action.EntityRecordSize {
			if e, _ := action.ParseEntity(snap[o:]); e.ID == me.ID {
				off = o
			}
		}
	}
	snap[off+34] ^= 0x20 // Health
	return w.Restore(snap) == nil
}

// flush sends what the core produced and records its events.
func (p *player) flush() {
	if n, err := p.outbox.Drain(p.conn, lanes.Orders); err == nil {
		p.res.Up += n
	}
	for p.core.HasReady() {
		rd := p.core.Ready()
		for _, m := range rd.Messages {
			if p.liar != nil {
				m = p.liar.Rewrite(m)
			}
			p.send(m)
		}
		for _, e := range rd.Events {
			p.event(e)
		}
		p.core.Advance(rd)
	}
	p.conn.Flush()
}

func (p *player) send(m ssmsg.Message) {
	b, err := ssmsg.Append(nil, m)
	if err != nil {
		return
	}
	lane := host.Lane(m, len(b))
	pieces := [][]byte{b}
	if lane == lanes.Orders {
		if pieces, err = ssmsg.Split(b, host.MaxDatagramMessage); err != nil {
			return
		}
	}
	if lane != lanes.Orders {
		for _, piece := range pieces {
			if p.conn.Send(lane, piece) == nil {
				p.res.Up += len(piece)
			}
		}
		return
	}
	n, err := p.outbox.Send(p.conn, lane, pieces)
	p.res.Up += n
	if err != nil && p.res.Err == nil {
		p.res.Err = err
	}
}

func (p *player) event(e statesync.ClientEvent) {
	r := &p.res
	switch e.Kind {
	case statesync.ClientAgreed:
		r.Agreed++
	case statesync.ClientDisagreed:
		r.Disagreed++
	case statesync.ClientDesynced:
		// A verdict on a frame before its last repair is stale, not a
		// new desync.
		if !p.desynced && e.Frame > p.repairedAt {
			p.desynced, p.desyncAt = true, e.Frame
			r.Desyncs++
		}
	case statesync.ClientCorrected, statesync.ClientSynced:
		p.repairedAt = e.Frame
		switch {
		case p.desynced:
			p.desynced = false
			r.RecoveryF = append(r.RecoveryF, e.Frame-min(p.desyncAt, e.Frame))
			r.RecoveryB = append(r.RecoveryB, e.Bytes)
			r.Recovered++
		case e.Kind == statesync.ClientSynced && !p.helloAt.IsZero():
			r.LateJoins = append(r.LateJoins, time.Since(p.helloAt))
			p.helloAt = time.Time{}
		}
	}
}
