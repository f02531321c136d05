package loadgen

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// ErrConfig reports a configuration Run cannot play.
var ErrConfig = errors.New("loadgen: bad configuration")

// Config says what load to generate.
type Config struct {
	// Server is the relay's UDP address, host:port.
	Server string
	// Room is the rooms' name prefix: game g plays room "Room-g".
	Room string
	// Games is the number of games, of Players players each (default 4).
	Games, Players int
	// Sockets is the number of UDP sockets, each with its goroutine
	// (default 1); players are spread over them.
	Sockets int
	// Transport configures the sessions (default: server/lanes').
	Transport *transport.Config
}

// Report is what the players did.
type Report struct {
	Players int            `json:"players"`
	Seated  int            `json:"seated"`  // players the relay seated
	Playing int            `json:"playing"` // players whose match was playing at the end
	Ticks   uint64         `json:"ticks"`   // ticks applied, all players together
	Errors  map[string]int `json:"errors"`  // why players stopped, by reason
}

// Run plays the load until ctx is done or every player has stopped (the
// server is gone: every session timed out; or removed them all), and
// reports.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.Players == 0 {
		cfg.Players = 4
	}
	if cfg.Sockets == 0 {
		cfg.Sockets = 1
	}
	if cfg.Games < 1 || cfg.Players < 1 || cfg.Players > 255 || cfg.Sockets < 1 {
		return Report{}, fmt.Errorf("%w: %d games of %d players over %d sockets", ErrConfig, cfg.Games, cfg.Players, cfg.Sockets)
	}
	tcfg := lanes.TransportConfig()
	if cfg.Transport != nil {
		tcfg = *cfg.Transport
	}
	raddr, err := net.ResolveUDPAddr("udp", cfg.Server)
	if err != nil {
		return Report{}, err
	}
	socks := make([]*socket, cfg.Sockets)
	for i := range socks {
		pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: localFor(raddr.IP)})
		if err != nil {
			return Report{}, err
		}
		_ = pc.SetReadBuffer(4 << 20)
		sw, err := transport.NewSwarm(pc, raddr, tcfg)
		if err != nil {
			pc.Close()
			return Report{}, err
		}
		defer sw.Close()
		socks[i] = &socket{sw: sw, bots: map[*transport.Session]*bot{}}
	}
	for g := range cfg.Games {
		req := join.Request{Room: fmt.Sprintf("%s-%d", cfg.Room, g), RoomSize: cfg.Players, NetworkModel: lockstep.NetworkModelName}
		for p := range cfg.Players {
			j, b, err := req.Encode()
			if err != nil {
				return Report{}, err
			}
			s := socks[(g*cfg.Players+p)%len(socks)]
			s.pending = append(s.pending, &bot{req: j, joinMsg: b})
		}
	}
	var wg sync.WaitGroup
	for _, s := range socks {
		wg.Go(func() { s.run(ctx) })
	}
	wg.Wait()
	rep := Report{Errors: map[string]int{}}
	for _, s := range socks {
		s.report(&rep)
	}
	return rep, nil
}

// localFor is the unspecified address of ip's family.
func localFor(ip net.IP) net.IP {
	if ip.To4() != nil {
		return net.IPv4zero
	}
	return net.IPv6unspecified
}

// socket is one shared socket and the players on it, run by one goroutine.
type socket struct {
	sw      *transport.Swarm
	pending []*bot
	bots    map[*transport.Session]*bot
	all     []*bot
	dirty   []*transport.Session
	touched []*transport.Session
	epoch   time.Time
	err     atomic.Value // a socket error that ended the loop
}

// bot is one light player: its session, its join, then its player.
type bot struct {
	sess    *transport.Session
	req     *join.JoinRoom
	joinMsg []byte
	asked   bool // JoinRoom sent
	player  *lockstep.LightPlayer
	rttAt   time.Duration
	err     error
	dirty   bool
}

// scanEvery is how often the loop looks at every player's deadline and
// runs every session's due timers: the coalesced timer.
const scanEvery = time.Millisecond

func (s *socket) run(ctx context.Context) {
	s.epoch = time.Now()
	now := time.Now()
	for _, b := range s.pending {
		b.sess = s.sw.Open(now)
		s.bots[b.sess] = b
		s.all = append(s.all, b)
		s.dirty = append(s.dirty, b.sess)
	}
	s.pending = nil
	nextScan := now
	for ctx.Err() == nil {
		if err := s.sw.Write(s.dirty, now); err != nil {
			s.err.Store(err)
			return
		}
		for _, sess := range s.dirty {
			s.bots[sess].dirty = false
		}
		s.dirty = s.dirty[:0]
		var err error
		if s.touched, err = s.sw.Read(s.touched[:0], nextScan, time.Now); err != nil {
			s.err.Store(err)
			return
		}
		now = time.Now()
		at := now.Sub(s.epoch)
		for _, sess := range s.touched {
			s.receive(s.bots[sess], at)
		}
		if !now.Before(nextScan) {
			if s.scan(at) == 0 {
				return // every player stopped
			}
			if err := s.sw.Sweep(now); err != nil {
				s.err.Store(err)
				return
			}
			nextScan = now.Add(scanEvery)
		}
	}
}

// receive hands a bot's messages to its join or its player.
func (s *socket) receive(b *bot, at time.Duration) {
	for m, ok := b.sess.Receive(); ok; m, ok = b.sess.Receive() {
		switch {
		case b.err != nil:
		case b.player != nil:
			b.player.Handle(at, m.Data)
		case b.asked && m.Channel == lanes.Orders:
			s.seat(b, m.Data)
		}
	}
	s.output(b, at)
}

// seat reads the join's answer.
func (s *socket) seat(b *bot, answer []byte) {
	seat, err := join.Answer(b.req, answer)
	if err == nil {
		b.player, err = lockstep.NewLightPlayer(seat, rand.Reader)
	}
	b.err = err
}

// scan runs the players' due deadlines, sends the joins of sessions that
// connected, and notes the ones that ended; it returns how many players
// have not stopped.
func (s *socket) scan(at time.Duration) (live int) {
	for _, b := range s.all {
		if b.err != nil || (b.player != nil && b.player.Err() != nil) {
			continue
		}
		live++
		switch st := b.sess.State(); {
		case st == transport.StateDisconnected:
			b.err = b.sess.Err()
			if b.player != nil {
				b.player.Fail(b.err)
			}
			continue
		case !b.asked && st == transport.StateConnected:
			b.asked = true
			b.err = b.sess.Send(lanes.Orders, b.joinMsg, s.epoch.Add(at))
			s.mark(b)
			continue
		}
		if b.player == nil {
			continue
		}
		if at >= b.rttAt {
			b.player.ObserveRTT(b.sess.Stats().RTT)
			b.rttAt = at + time.Second
		}
		if next, ok := b.player.Next(); ok && next <= at {
			b.player.Tick(at)
			s.output(b, at)
		}
	}
	return live
}

// output queues what a bot's player has to send.
func (s *socket) output(b *bot, at time.Duration) {
	if b.player == nil {
		return
	}
	now := s.epoch.Add(at)
	sent := false
	b.player.Output(func(lane transport.ChannelID, data []byte) error {
		sent = true
		return b.sess.Send(lane, data, now)
	})
	if sent {
		s.mark(b)
	}
}

// mark queues a bot's session for the next write.
func (s *socket) mark(b *bot) {
	if !b.dirty {
		b.dirty = true
		s.dirty = append(s.dirty, b.sess)
	}
}

// report adds the socket's players to rep.
func (s *socket) report(rep *Report) {
	if err, _ := s.err.Load().(error); err != nil {
		rep.Errors["socket: "+err.Error()]++
	}
	for _, b := range s.all {
		rep.Players++
		err := b.err
		if b.player != nil {
			rep.Seated++
			rep.Ticks += b.player.Applied()
			if b.player.Status() == lockstep.StatusPlaying {
				rep.Playing++
			}
			if err == nil {
				err = b.player.Err()
			}
		}
		if err != nil {
			rep.Errors[err.Error()]++
		}
	}
}
