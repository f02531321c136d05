package relay

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// TestTranscripts replays the scenarios in testdata/, one per file, and
// compares what the core sends and reports with the recorded transcript.
// The scenarios live in testdata/transcripts.
// Regenerate with: go test ./relay -run TestTranscripts -rewrite
//
// Commands (D is a duration such as 1.5s or 200ms; T a point on the relay
// clock: a duration since its epoch, or K, K+D or K-D for the start of
// tick K's window plus or minus D):
//
//	new players=1,2 [tps=30] [profile=casual] [strike-limit=N] [suspicious-strikes]
//	    [frozen=D] [heartbeat=D] [one-way-clip=D] [seed=N] [debug-level=N]
//	net p=ID up=D [down=D] [jitter=D] [offset=D]   a client's path and clock
//	behave p=ID [hold=D [only=TICK | every=N]] [silent] [noecho] [noreveal] [badhash=TICK]
//	    [lie] [collide] [backedup] [normal]  (lie: as a donor, a snapshot
//	                           that is not the agreed hash; collide: one
//	                           that is, over a forged state)    (backedup: the relay's sends to it back up and
//	                           the relay calls Leave between Ready and Advance)
//	calibrate                run the ping exchange to its end
//	start                    run the seed exchange until play begins
//	issue p=ID at=T [kind=move]  the client issues an order at relay time T
//	play to=TICK [quiet]     run until frame TICK has been broadcast (quiet:
//	                         no frames, feedback or late submissions)
//	advance by=D | to=T [quiet]
//	stall for=D [quiet]      the relay process does not run for D (the clients
//	                         and the network do), then resumes
//	submit p=ID tick=K at=T [sent=T] [sub=US,...] [noecho]  a hand-made
//	    submission reaching the relay at T (sent defaults to an honest stamp)
//	state [p=ID]             print the players' state
//	removals                 print the removals each client was told of
//	timing                   print the match timing and QoS state
//	tree leaves=N            every client hashes a state tree of N leaves
//	    and answers the desync walk from it (see walkTree)
//	corrupt p=ID leaf=L,... [from=TICK] [by=N]  the client's leaves differ
//	lie p=ID mode=majority|silent|flip  how the client answers the walk
func TestTranscripts(t *testing.T) {
	datadriven.Walk(t, "testdata/transcripts", func(t *testing.T, path string) {
		var n *simNet
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			if td.Cmd != "new" && n == nil {
				td.Fatalf(t, "no core: start with new")
			}
			var out bytes.Buffer
			if n != nil {
				n.log, n.quiet = &out, td.HasArg("quiet")
			}
			switch td.Cmd {
			case "new":
				n = cmdNew(t, td)
				n.log = &out
			case "net":
				c := argClient(t, td, n)
				c.up = argDur(t, td, "up", c.up)
				c.down = argDur(t, td, "down", c.up)
				c.jitter = argDur(t, td, "jitter", c.jitter)
				c.trueOff = argDur(t, td, "offset", c.trueOff)
			case "behave":
				c := argClient(t, td, n)
				if td.HasArg("normal") {
					c.hold, c.holdOnly, c.holdEvery, c.silent, c.noEcho, c.noReveal, c.badHashAt, c.backedUp = 0, 0, 0, false, false, false, 0, false
				}
				c.hold = argDur(t, td, "hold", c.hold)
				if td.HasArg("only") {
					td.ScanArgs(t, "only", &c.holdOnly)
				}
				if td.HasArg("every") {
					td.ScanArgs(t, "every", &c.holdEvery)
				}
				c.silent = c.silent || td.HasArg("silent")
				c.noEcho = c.noEcho || td.HasArg("noecho")
				c.noReveal = c.noReveal || td.HasArg("noreveal")
				c.backedUp = c.backedUp || td.HasArg("backedup")
				c.rejoin.lie = c.rejoin.lie || td.HasArg("lie")
				c.rejoin.collide = c.rejoin.collide || td.HasArg("collide")
				if td.HasArg("badhash") {
					td.ScanArgs(t, "badhash", &c.badHashAt)
				}
			case "tree", "corrupt", "lie":
				cmdWalk(t, td, n)
			case "calibrate":
				n.runUntil(n.now+time.Minute, func() bool { return n.core.Phase() != PhaseCalibrating })
			case "start":
				n.runUntil(n.now+time.Minute, func() bool { return n.core.Phase() >= PhasePlaying })
			case "issue":
				c := argClient(t, td, n)
				at := argAt(t, td, n, "at", 0)
				var o protocol.PlayerOrder = protocol.Move{Units: []protocol.EntityID{1}}
				if kind := argStr(td, "kind", "move"); kind == "sell" {
					o = protocol.Sell{Building: 1}
				}
				if c.playing && at < n.now {
					td.Fatalf(t, "issue in the past")
				}
				k := n.issue(c, at, o)
				if k < c.nextTick {
					td.Fatalf(t, "window %d already submitted", k)
				}
				fmt.Fprintf(&out, "player %d issues at %v, in its window %d\n", c.id, at.Round(time.Microsecond), k)
			case "play":
				var to uint64
				td.ScanArgs(t, "to", &to)
				n.runUntil(n.now+time.Hour, func() bool { return n.core.NextTick() > to || n.core.Phase() == PhaseEnded })
			case "advance":
				to := argAt(t, td, n, "to", n.now+argDur(t, td, "by", 0))
				n.runUntil(to, func() bool { return false })
			case "stall":
				n.stallUntil = n.now + argDur(t, td, "for", 0)
				n.runUntil(n.stallUntil, func() bool { return false })
			case "submit":
				cmdSubmit(t, td, n)
			case "disconnect":
				c := argClient(t, td, n)
				c.rejoin.gone = true
				n.core.Disconnected(n.now, c.id)
				n.drain()
			case "rejoin":
				c := argClient(t, td, n)
				c.rejoin.gone, c.rejoin.rejoining = false, true
				if err := n.core.Rejoin(n.now, c.id); err != nil {
					fmt.Fprintf(&out, "error: %v\n", err)
				}
				n.drain()
			case "state":
				printState(&out, n, td)
			case "removals":
				for _, c := range n.clients {
					fmt.Fprintf(&out, "player %d:", c.id)
					for _, l := range c.learned {
						fmt.Fprintf(&out, " %d leaves at tick %d (%v), heard at %s from %s;", l.Player, l.AtTick, l.Reason, strings.TrimSpace(fmtTime(l.at)), l.how)
					}
					out.WriteByte('\n')
				}
			case "timing":
				qs := n.core.QosState()
				fmt.Fprintf(&out, "phase=%v next-tick=%d deadline=%v run-ahead=%d ewma=%dbps raise=%d lower=%d cooldown=%d\n",
					n.core.Phase(), n.core.NextTick(), n.core.Deadline(), n.core.RunAhead(),
					qs.EWMALateRateBps, qs.ConsecutiveRaiseWindows, qs.ConsecutiveLowerWindows, qs.CooldownRemaining)
			default:
				td.Fatalf(t, "unknown command %q", td.Cmd)
			}
			if n.lateQuiet > 0 {
				fmt.Fprintf(&out, "(%d late submissions not shown)\n", n.lateQuiet)
				n.lateQuiet = 0
			}
			return out.String()
		})
	})
}

func cmdNew(t *testing.T, td *datadriven.TestData) *simNet {
	var ids []protocol.PlayerID
	for _, v := range argList(t, td, "players") {
		ids = append(ids, protocol.PlayerID(v))
	}
	cfg := Config{}
	if td.HasArg("tps") {
		td.ScanArgs(t, "tps", &cfg.TickRate)
	}
	cfg.Profile = Ranked()
	if argStr(td, "profile", "ranked") == "casual" {
		cfg.Profile = Casual()
	}
	cfg.Profile.OneWayClip = argDur(t, td, "one-way-clip", cfg.Profile.OneWayClip)
	if td.HasArg("strike-limit") {
		td.ScanArgs(t, "strike-limit", &cfg.Strikes.Limit)
	}
	cfg.Strikes.Suspicious = td.HasArg("suspicious-strikes")
	cfg.FrozenTimeout = argDur(t, td, "frozen", 0)
	cfg.HeartbeatTimeout = argDur(t, td, "heartbeat", 0)
	cfg.Rejoin.Enabled = td.HasArg("rejoins")
	cfg.Rejoin.Timeout = argDur(t, td, "rejoin-timeout", 0)
	if td.HasArg("debug-level") {
		td.ScanArgs(t, "debug-level", &cfg.DebugLevel)
	}
	seed := uint64(1)
	if td.HasArg("seed") {
		td.ScanArgs(t, "seed", &seed)
	}
	n, err := newSimNet(cfg, ids, seed)
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	return n
}

func cmdSubmit(t *testing.T, td *datadriven.TestData, n *simNet) {
	c := argClient(t, td, n)
	var tick uint64
	td.ScanArgs(t, "tick", &tick)
	at := argAt(t, td, n, "at", n.now)
	sent := argAt(t, td, n, "sent", c.estimate(at-c.up))
	s := &msg.OrderSubmit{Tick: tick, SentUs: durUs(sent)}
	for _, us := range argList(t, td, "sub") {
		s.Orders = append(s.Orders, protocol.TimestampedOrder{Player: c.id, Order: protocol.Move{Units: []protocol.EntityID{1}}, SubTickTime: uint32(us)})
	}
	if c.haveFrame && !td.HasArg("noecho") {
		s.AckTick, s.Token, s.AckDelayUs = c.lastTick, c.lastToken, uint32(durUs(at-c.up-c.frameAt))
	}
	n.runUntil(at, func() bool { return false })
	n.push(delivery{at: at, toRelay: true, client: c, m: s})
	n.stepOnce()
}

func printState(out *bytes.Buffer, n *simNet, td *datadriven.TestData) {
	for _, c := range n.clients {
		if td.HasArg("p") && argStr(td, "p", "") != fmt.Sprint(c.id) {
			continue
		}
		st, _ := n.core.Player(c.id)
		fmt.Fprintf(out, "player %d: %v strikes=%d suspicious=%d late=%d idle=%d echo=%d rtt=%v jitter=%v offset=%v\n",
			st.ID, st.Status, st.Strikes, st.Suspicious, st.LateSubmissions, st.IdleTicks, st.LastEcho,
			st.Clock.RTT.Mean.Round(time.Microsecond), st.Clock.Jitter().Round(time.Microsecond), st.Clock.Offset.Mean.Round(time.Microsecond))
	}
}

func argClient(t *testing.T, td *datadriven.TestData, n *simNet) *simClient {
	var id int
	td.ScanArgs(t, "p", &id)
	c := n.client(protocol.PlayerID(id))
	if c == nil {
		td.Fatalf(t, "no player %d", id)
	}
	return c
}

func argStr(td *datadriven.TestData, key, def string) string {
	for _, a := range td.CmdArgs {
		if a.Key == key && len(a.Vals) > 0 {
			return a.Vals[0]
		}
	}
	return def
}

func argDur(t *testing.T, td *datadriven.TestData, key string, def time.Duration) time.Duration {
	s := argStr(td, key, "")
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		td.Fatalf(t, "%s: %v", key, err)
	}
	return d
}

// argAt reads a point in time: a duration on the relay clock (1.5s), or a
// tick's window start plus or minus a duration (4+10ms, 4-5ms, 4).
func argAt(t *testing.T, td *datadriven.TestData, n *simNet, key string, def time.Duration) time.Duration {
	s := argStr(td, key, "")
	if s == "" {
		return def
	}
	tick, rest := s, ""
	if i := strings.IndexAny(s, "+-"); i > 0 {
		tick, rest = s[:i], s[i:]
	}
	k, err := strconv.ParseInt(tick, 10, 64)
	if err != nil {
		return argDur(t, td, key, def)
	}
	at := n.core.timeline.windowStart(k)
	if rest != "" {
		d, err := time.ParseDuration(rest)
		if err != nil {
			td.Fatalf(t, "%s: %v", key, err)
		}
		at += d
	}
	return at
}

func argList(t *testing.T, td *datadriven.TestData, key string) []uint64 {
	var out []uint64
	for _, a := range td.CmdArgs {
		if a.Key != key {
			continue
		}
		for _, v := range a.Vals {
			for _, f := range strings.Split(v, ",") {
				u, err := strconv.ParseUint(f, 10, 64)
				if err != nil {
					td.Fatalf(t, "%s: %v", key, err)
				}
				out = append(out, u)
			}
		}
	}
	return out
}
