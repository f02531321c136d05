package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/lockstepbot"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// lockstepFile is the [relay.lockstep] table: the lockstep rooms'
// settings. A zero field is unset.
type lockstepFile struct {
	// DelayTicks is the room option delay_ticks: the least delay of an
	// observer's feed, in ticks (0: live, for casual rooms).
	DelayTicks uint32 `toml:"delay_ticks"`
	// MaxObservers bounds a room's observers (0: the default, 8).
	MaxObservers int `toml:"max_observers"`
}

func (f *lockstepFile) check() error {
	switch {
	case f.DelayTicks > lockstepserver.MaxDelayTicks:
		return fmt.Errorf("delay_ticks %d is beyond %d", f.DelayTicks, lockstepserver.MaxDelayTicks)
	case f.MaxObservers < 0:
		return fmt.Errorf("max_observers %d is negative", f.MaxObservers)
	}
	return nil
}

// config is the lockstep model's configuration: rejoins taken, the
// observers' settings of the table.
func (f *lockstepFile) config(maxRoomSize int) lockstepserver.Config {
	return lockstepserver.Config{MaxRoomSize: maxRoomSize, DelayTicks: f.DelayTicks, MaxObservers: cmp.Or(f.MaxObservers, lockstepserver.DefaultMaxObservers),
		Relay: relay.Config{Rejoin: relay.RejoinConfig{Enabled: true}}}
}

// rejoinFlags are the reconnection and observer options of the lockstep
// bot.
type rejoinFlags struct {
	dropAt      uint64
	rejoinAfter time.Duration
	observer    bool
	delayTicks  uint
}

// add defines the flags; --observer also sets spectate (the shared flags'
// one: --players defaults to 1).
func (f *rejoinFlags) add(fs *flag.FlagSet, spectate *bool) {
	fs.Uint64Var(&f.dropAt, "drop-at-tick", 0, "each bot vanishes after applying this tick (its socket falls silent, its state is kept) and rejoins after --rejoin-after")
	fs.DurationVar(&f.rejoinAfter, "rejoin-after", 2*time.Second, "with --drop-at-tick: how long a bot stays away")
	fs.Var(bothFlag{&f.observer, spectate}, "observer", "watch the playing room without a seat: one observer, which runs the simulation and never submits")
	fs.UintVar(&f.delayTicks, "delay-ticks", 0, "with --observer: the feed delay to ask for, in ticks (the room's delay_ticks is the least)")
}

func (f *rejoinFlags) check(players int, ticks uint64) error {
	switch {
	case f.delayTicks > lockstepserver.MaxDelayTicks:
		return fmt.Errorf("%w: --delay-ticks is at most %d", errUsage, lockstepserver.MaxDelayTicks)
	case f.observer && f.dropAt > 0:
		return fmt.Errorf("%w: --drop-at-tick is for players, not --observer", errUsage)
	case f.observer && players != 1:
		return fmt.Errorf("%w: --observer watches with one bot (--players 1)", errUsage)
	case f.observer && ticks < 1:
		return fmt.Errorf("%w: --observer needs --ticks", errUsage)
	case f.delayTicks > 0 && !f.observer:
		return fmt.Errorf("%w: --delay-ticks is for --observer", errUsage)
	}
	return nil
}

// bothFlag is a boolean flag that sets two variables.
type bothFlag [2]*bool

func (b bothFlag) IsBoolFlag() bool { return true }

func (b bothFlag) String() string {
	if b[0] == nil {
		return "false"
	}
	return strconv.FormatBool(*b[0])
}

func (b bothFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	*b[0], *b[1] = v, v
	return err
}

// cutNet is the bots' sockets, each of which a drop can cut: a cut
// socket drops everything both ways, as a crashed client's network
// would, so the relay notices by silence and not by a goodbye.
type cutNet struct {
	mu    sync.Mutex
	socks map[int]*cutConn
}

type cutConn struct {
	net.PacketConn
	cut atomic.Bool
}

func (c *cutConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	if c.cut.Load() {
		return len(b), nil
	}
	return c.PacketConn.WriteTo(b, addr)
}

func (c *cutConn) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		n, addr, err := c.PacketConn.ReadFrom(b)
		if err != nil || !c.cut.Load() {
			return n, addr, err
		}
	}
}

// wrap records pc as bot i's socket and returns it cuttable.
func (cn *cutNet) wrap(i int, pc net.PacketConn) net.PacketConn {
	c := &cutConn{PacketConn: pc}
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if cn.socks == nil {
		cn.socks = map[int]*cutConn{}
	}
	cn.socks[i] = c
	return c
}

// drop cuts bot i's socket.
func (cn *cutNet) drop(i int) {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if c := cn.socks[i]; c != nil {
		c.cut.Store(true)
	}
}

// rejoinConfig is the bots' RejoinConfig: redial dials bot i anew.
func (f *rejoinFlags) rejoinConfig(cn *cutNet, redial func(ctx context.Context, i int) (*transport.Conn, error)) lockstepbot.RejoinConfig {
	if f.dropAt == 0 {
		return lockstepbot.RejoinConfig{}
	}
	return lockstepbot.RejoinConfig{DropAtTick: f.dropAt, After: f.rejoinAfter, Drop: cn.drop,
		Rejoin: func(ctx context.Context, i int, c lockstepbot.Client) error {
			rc, ok := c.(*lockstep.RelayClient)
			if !ok {
				return lockstep.ErrNoRejoin
			}
			conn, err := redial(ctx, i)
			if err != nil {
				return err
			}
			return rc.Rejoin(ctx, conn)
		}}
}

// dialCuttable dials the relay at addr from a socket of its own that cn
// can cut.
func dialCuttable(ctx context.Context, cn *cutNet, i int, addr string, tcfg transport.Config) (*transport.Conn, error) {
	raddr, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	local := ":0"
	if raddr.IP.To4() != nil {
		local = "0.0.0.0:0"
	}
	pc, err := net.ListenPacket("udp", local)
	if err != nil {
		return nil, err
	}
	conn, err := transport.Dial(ctx, cn.wrap(i, pc), raddr, tcfg)
	if err != nil {
		pc.Close()
	}
	return conn, err
}

// rejoinBots makes cfg's bots observers (--observer) or droppers
// (--drop-at-tick): their joins dial from sockets a drop can cut.
func (f *botFlags) rejoinBots(cfg *lockstepbot.Config) error {
	if !f.rejoin.observer && f.rejoin.dropAt == 0 {
		return nil
	}
	tcfg := lanes.TransportConfig()
	var err error
	if tcfg.Security, err = f.sec.clientConfig(); err != nil {
		return err
	}
	cn := &cutNet{}
	dial := f.proven().wrap(func(ctx context.Context, i int) (*transport.Conn, error) {
		return dialCuttable(ctx, cn, i, f.server, tcfg)
	})
	if f.rejoin.observer {
		cfg.Observer = true
		cfg.Join = func(ctx context.Context, i int) (lockstepbot.Client, error) {
			conn, err := dial(ctx, i)
			if err != nil {
				return nil, err
			}
			c, err := lockstep.JoinObserver(ctx, conn, f.room, uint32(f.rejoin.delayTicks), lockstep.RelayClientConfig{})
			if err != nil {
				return nil, err
			}
			return c, nil
		}
		return nil
	}
	cfg.Join = func(ctx context.Context, i int) (lockstepbot.Client, error) {
		conn, err := dial(ctx, i)
		if err != nil {
			return nil, err
		}
		return joinRoom(ctx, conn, f.room, f.roomSize)
	}
	cfg.Rejoin = f.rejoin.rejoinConfig(cn, dial)
	return nil
}

// demoReconnect is the demo's join and reconnection with --reconnect:
// the second bot's socket goes silent a third into the match (its
// impairment turns to 100% loss both ways) and it rejoins 2 s later on a
// new one.
func demoReconnect(d *demoServer, f demoFlags) (lockstepbot.JoinFunc, lockstepbot.RejoinConfig) {
	var mu sync.Mutex
	socks := map[int]*netsim.PacketConn{}
	dial := func(ctx context.Context, i int) (*transport.Conn, error) {
		conn, pc, err := d.dialImpaired(ctx, i)
		if err == nil {
			mu.Lock()
			socks[i] = pc
			mu.Unlock()
		}
		return conn, err
	}
	join := func(ctx context.Context, i int) (lockstepbot.Client, error) {
		conn, err := dial(ctx, i)
		if err != nil {
			return nil, err
		}
		return joinRoom(ctx, conn, "demo", f.players)
	}
	rc := rejoinFlags{dropAt: max(f.ticks/3, 1), rejoinAfter: 2 * time.Second}
	cfg := rc.rejoinConfig(nil, dial)
	cfg.Which = func(i int) bool { return i == min(1, f.players-1) }
	cfg.Drop = func(i int) {
		mu.Lock()
		defer mu.Unlock()
		if pc := socks[i]; pc != nil {
			pc.SetLinks(netsim.Link{Loss: 1}, netsim.Link{Loss: 1})
		}
	}
	return join, cfg
}
