package echoclient

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tickwire/tickwire/examples/echo"
	"github.com/tickwire/tickwire/internal/botpool"
	"github.com/tickwire/tickwire/server/join"
)

// BotRun is a run of echo bots: Players bots join Room, a room of
// RoomSize players (0: Players), and each says Messages lines, one every Interval (0:
// back to back), while it listens to the room.
type BotRun struct {
	Players  int
	RoomSize int
	Room     string
	Messages int
	Interval time.Duration
	// Dial connects bot i.
	Dial botpool.Dial
}

// PlayerReport is what one bot saw (a line of "bot --mode echo --json").
type PlayerReport struct {
	ID int `json:"id"`
	// Said counts its Says sent, Echoes those that came back to it.
	Said   int `json:"said"`
	Echoes int `json:"echoes"`
	// Heard counts the echoes it received from every seat, its own
	// included; OutOfOrder those not next in their sender's sequence
	// (lost, repeated or reordered).
	Heard      int `json:"heard"`
	OutOfOrder int `json:"out_of_order"`
	// RTTMeanMS and RTTMaxMS are the round trips of its own Says.
	RTTMeanMS float64 `json:"rtt_mean_ms"`
	RTTMaxMS  float64 `json:"rtt_max_ms"`
	// Certificate is the match's certified result the server sent when
	// the match ended (the JSON `tickwire matches verify` reads), if one
	// came.
	Certificate json.RawMessage `json:"certificate,omitempty"`
	Error       string          `json:"error,omitempty"`
	// JoinErr is why the bot never joined: its dial's or its join's
	// error as returned, for the caller to name the cause (a refusal is
	// a *join.JoinError); nil once it joined. Error has its text.
	JoinErr error `json:"-"`
}

// Report is a run's summary.
type Report struct {
	NetworkModel string         `json:"network_model"`
	Messages     int            `json:"messages"`
	Players      []PlayerReport `json:"players"`
	// AllEchoed holds when every bot heard every Say of every bot of its
	// room exactly once, in its sender's order.
	AllEchoed bool `json:"all_echoed"`
}

// RunBots plays r's bots side by side until each heard every Say of its
// room (or ctx ends) and summarises them.
func RunBots(ctx context.Context, r BotRun) Report {
	if r.RoomSize == 0 {
		r.RoomSize = r.Players
	}
	rep := Report{NetworkModel: echo.ModelName, Messages: r.Messages, AllEchoed: true}
	rep.Players = botpool.Play(r.Players, func(i int) PlayerReport { return playBot(ctx, r, i) })
	for _, p := range rep.Players {
		ok := p.Error == "" && p.Echoes == r.Messages && p.OutOfOrder == 0 && p.Heard == r.RoomSize*r.Messages
		rep.AllEchoed = rep.AllEchoed && ok
	}
	return rep
}

// playBot is bot i's whole run: join, say its lines while it listens,
// leave once it heard every line of the room.
func playBot(ctx context.Context, r BotRun, i int) PlayerReport {
	p := PlayerReport{ID: i + 1}
	conn, err := r.Dial(ctx, i)
	if err != nil {
		p.Error, p.JoinErr = err.Error(), err
		return p
	}
	c, err := Join(ctx, conn, r.Room, r.RoomSize)
	if err != nil {
		p.Error, p.JoinErr = err.Error(), err
		return p
	}
	defer c.Close()
	p.ID = int(c.Player())
	epoch := time.Now()
	sayCtx, stop := context.WithCancel(ctx)
	said := make(chan int, 1)
	go func() { said <- sayAll(sayCtx, c, r, epoch) }()
	// Every bot says a line every Interval: a room silent for much longer
	// than that lost its server (or its bots), and the bot ends.
	idle := join.WatchIdle(c.Conn(), max(join.DefaultIdleTimeout, 4*r.Interval))
	idle.Arm()
	listen(ctx, c, r.Messages, epoch, &p, idle)
	idle.Stop()
	stop()
	p.Said = <-said
	if p.Error == "" {
		p.Certificate = botpool.Leave(ctx, c.Leave)
	}
	return p
}

// sayAll says the bot's lines and returns how many went out.
func sayAll(ctx context.Context, c *Client, r BotRun, epoch time.Time) int {
	var tick <-chan time.Time
	if r.Interval > 0 {
		t := time.NewTicker(r.Interval)
		defer t.Stop()
		tick = t.C
	}
	for seq := 1; seq <= r.Messages; seq++ {
		text := fmt.Appendf(nil, "player %d, line %d", c.Player(), seq)
		if c.Say(&echo.Say{Seq: uint32(seq), SentUs: uint64(time.Since(epoch) / time.Microsecond), Text: text}) != nil {
			return seq - 1
		}
		if tick != nil && seq < r.Messages {
			select {
			case <-tick:
			case <-ctx.Done():
				return seq
			}
		}
	}
	return r.Messages
}

// listen receives echoes until every seat's messages lines came back
// (or the connection or ctx ends, or idle closed the silent connection),
// recording them in p.
func listen(ctx context.Context, c *Client, messages int, epoch time.Time, p *PlayerReport, idle *join.IdleWatch) {
	next := make(map[uint16]uint32, c.Players())
	var rttSum time.Duration
	for p.Heard < c.Players()*messages {
		e, err := c.Receive(ctx)
		if err != nil {
			p.Error = idle.Err(err).Error()
			break
		}
		p.Heard++
		if e.Seq != next[e.From]+1 {
			p.OutOfOrder++
		}
		next[e.From] = e.Seq
		if e.From == uint16(c.Player()) {
			p.Echoes++
			rtt := time.Since(epoch) - time.Duration(e.SentUs)*time.Microsecond
			rttSum += rtt
			p.RTTMaxMS = max(p.RTTMaxMS, ms(rtt))
		}
	}
	if p.Echoes > 0 {
		p.RTTMeanMS = ms(rttSum / time.Duration(p.Echoes))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
