package main

import (
	"context"
	"crypto/ed25519"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/tickwire/tickwire/agones"
	"github.com/tickwire/tickwire/records"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/tracker"
)

// operatorFlags are the server options of the operator's side: match
// records, tracker publishing, Agones and graceful drain.
type operatorFlags struct {
	db           string
	trackers     stringList
	trackerToken string
	publicAddr   string
	region       string
	agones       bool
	oneMatch     bool
	drainTimeout time.Duration
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func (o *operatorFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.db, "db", "", "match records database (SQLite file; empty: none)")
	fs.StringVar(&o.trackerToken, "tracker-token", "", "publisher token presented to the trackers (a tracker started with --publisher-tokens asks for one)")
	fs.Var(&o.trackers, "tracker", "tracker URL to publish open rooms at (repeatable, at most 10; https:// or loopback http://)")
	fs.StringVar(&o.publicAddr, "public-addr", "", "address players reach the server at, for tracker listings (default: --listen)")
	fs.StringVar(&o.region, "region", "", "the server's region, for tracker listings")
	fs.BoolVar(&o.agones, "agones", false, "talk to the Agones SDK sidecar (also on when "+agones.EnvPort+" is set)")
	fs.BoolVar(&o.oneMatch, "agones-one-match", false, "with Agones, ask for shutdown once the server's match ended (one match per pod) instead of marking it Ready again")
	fs.DurationVar(&o.drainTimeout, "drain-timeout", 0, "on SIGTERM, let running matches finish this long before ending them (0: end at once)")
}

// operator runs the operator's side around a server.
type operator struct {
	flags    operatorFlags
	maxGames int
	log      *slog.Logger
	db       *records.DB
	replays  *replayLog        // the finished replays, for the records
	agones   *agones.Lifecycle // nil without Agones
	mu       sync.Mutex
	ids      map[uint64]int64  // match Seq → database id
	rooms    map[uint64]string // match Seq → room, of the matches running
	// recordErr is the last failed write of a match record, nil once a
	// write succeeds again; recordErrors counts the failures.
	recordErr    error
	recordErrors uint64
}

// newOperator opens the database and returns the operator; cfg.OnMatch
// is set when there is a database. The tracker URLs were checked with the
// flags (parseServeFlags).
func newOperator(ctx context.Context, o operatorFlags, cfg *server.Config, log *slog.Logger) (*operator, error) {
	op := &operator{flags: o, log: log, ids: make(map[uint64]int64), rooms: make(map[uint64]string)}
	if c, ok := agones.FromEnv(); ok || o.agones {
		op.agones = &agones.Lifecycle{Client: c, Logger: log}
		if o.oneMatch {
			op.agones.AfterMatch = agones.Shutdown
		}
	}
	if o.db != "" {
		db, err := records.Open(ctx, o.db)
		if err != nil {
			return nil, fmt.Errorf("%w: --db (relay.db): %w", errConfig, err)
		}
		op.db = db
		cfg.OnMatch = op.onMatch
	}
	return op, nil
}

// recorded notes the outcome of a write of the records: a failure makes
// /readyz fail and counts; a success clears it.
func (op *operator) recorded(err error) {
	op.mu.Lock()
	op.recordErr = err
	if err != nil {
		op.recordErrors++
	}
	op.mu.Unlock()
}

// recordsReady is nil while the records can be written.
func (op *operator) recordsReady() error {
	op.mu.Lock()
	defer op.mu.Unlock()
	return op.recordErr
}

// addChecks makes adm's /readyz fail while Agones cannot be reached or
// the records cannot be written.
func (op *operator) addChecks(adm *admin.Server) {
	if op.agones != nil {
		adm.AddCheck("agones", op.agones.Err)
	}
	if op.db != nil {
		adm.AddCheck("records", op.recordsReady)
	}
}

// metrics are the operator's series for the admin endpoint.
func (op *operator) metrics() []admin.Metric {
	if op.db == nil {
		return nil
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	return []admin.Metric{{Name: "tickwire_relay_record_write_errors_total", Help: "Writes of match records to the database that failed.",
		Counter: true, Value: float64(op.recordErrors)}}
}

func (op *operator) onMatch(ev server.MatchEvent) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if !ev.Ended {
		id, err := op.db.Start(ctx, recordOf(ev))
		op.recorded(err)
		if err != nil {
			op.log.Error("match record not written", "room", ev.Room, "err", err)
			return
		}
		op.mu.Lock()
		op.ids[ev.Seq], op.rooms[ev.Seq] = id, ev.Room
		op.mu.Unlock()
		return
	}
	op.mu.Lock()
	id, ok := op.ids[ev.Seq]
	delete(op.rooms, ev.Seq)
	op.mu.Unlock()
	if !ok {
		return
	}
	r := records.Record{ID: id, EndedAt: ev.EndedAt, Ticks: ev.Tick, Outcome: ev.Outcome, FinalHash: ev.FinalHash}
	if op.replays != nil {
		r.ReplayFile, r.ReplayHash = op.replays.take(ev.Room)
	}
	err := op.db.End(ctx, r)
	op.recorded(err)
	if err != nil {
		op.log.Error("match record not ended", "room", ev.Room, "err", err)
	}
}

// progressEvery is how often the rows of running matches get their ticks
// played and the time: what a match cut by a crash shows.
const progressEvery = 2 * time.Second

// progress writes the ticks each running match has played (st's rooms).
func (op *operator) progress(st server.Stats) {
	ticks := make(map[string]uint64, len(st.Rooms))
	for _, r := range st.Rooms {
		ticks[r.Name] = r.Tick
	}
	var played []records.Played
	op.mu.Lock()
	for seq, room := range op.rooms {
		if tick, ok := ticks[room]; ok {
			played = append(played, records.Played{ID: op.ids[seq], Ticks: tick})
		}
	}
	op.mu.Unlock()
	if len(played) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := op.db.Progress(ctx, time.Now(), played...) // a match that ended meanwhile is left alone
	was := op.recordsReady()
	op.recorded(err)
	if err != nil && was == nil { // once per failing spell
		op.log.Error("match progress not written", "matches", len(played), "err", err)
	}
}

// row is the database's row of a match that ended, which the server
// certifies (Config.Certify is called right after OnMatch's end); it
// forgets the match.
func (op *operator) row(ev server.MatchEvent) (records.Record, bool) {
	op.mu.Lock()
	id, ok := op.ids[ev.Seq]
	delete(op.ids, ev.Seq)
	op.mu.Unlock()
	if !ok {
		return records.Record{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := op.db.Get(ctx, id)
	if err != nil {
		op.log.Error("match record not read to certify", "room", ev.Room, "err", err)
		return records.Record{}, false
	}
	return r, true
}

// certify sets cfg.Certify: the server signs each ended match's record
// (its database row when there is a database) with key.
func (op *operator) certify(cfg *server.Config, key ed25519.PrivateKey) {
	var row func(server.MatchEvent) (records.Record, bool)
	if op.db != nil {
		row = op.row
	}
	cfg.Certify = certifier(key, row)
}

// listingsOf are a server's rooms (its Stats) as tracker listings.
func (op *operator) listingsOf(st server.Stats, addr, serverKey string) []tracker.Listing {
	var out []tracker.Listing
	for _, r := range st.Rooms {
		status := tracker.StatusInProgress
		switch {
		case r.Phase == "waiting" && r.Players < r.Size:
			status = tracker.StatusWaiting
		case r.Phase == "waiting":
			status = tracker.StatusFull
		}
		players := make([]tracker.Player, min(r.Players, r.Size))
		out = append(out, tracker.Listing{Host: addr, Room: r.Name, ServerKey: serverKey, Map: tracker.MapMeta{Name: r.MatchType, Seats: max(r.Size, 1)},
			Players: players, Status: status, Engine: "tickwire", NetworkModel: r.NetworkModel, Region: op.flags.region})
	}
	return out
}

// run publishes the rooms and drives Agones until ctx ends.
func (op *operator) run(ctx context.Context, srv *server.Server, addr, serverKey string) {
	var wg sync.WaitGroup
	if len(op.flags.trackers) > 0 {
		cs, _ := tracker.Clients(op.flags.trackers)
		for _, c := range cs {
			c.PublisherToken = op.flags.trackerToken
		}
		if op.flags.publicAddr != "" {
			addr = op.flags.publicAddr
		}
		p := &tracker.Publisher{Clients: cs, Logger: op.log, Rooms: func() []tracker.Listing {
			if srv.Draining() {
				return nil
			}
			return op.listingsOf(srv.Stats(), addr, serverKey)
		}}
		wg.Go(func() { p.Run(ctx) })
	}
	if op.db != nil {
		wg.Go(func() {
			t := time.NewTicker(progressEvery)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					op.progress(srv.Stats())
				}
			}
		})
	}
	if lc := op.agones; lc != nil {
		lc.Rooms = func() agones.Rooms {
			st := srv.Stats()
			free := 0
			if op.maxGames > 0 {
				free = max(0, op.maxGames-len(st.Rooms))
			}
			return agones.Rooms{Active: st.ActiveGames, Free: free, Started: st.GamesStarted}
		}
		lc.Drain = srv.Drain
		wg.Go(func() { lc.Run(ctx) })
	}
	wg.Wait()
}

// drain ends the server gracefully: no new rooms, not ready, running
// matches finish for at most the drain timeout.
func (op *operator) drain(srv *server.Server, notReady func()) {
	if op.flags.drainTimeout <= 0 {
		return
	}
	srv.Drain()
	notReady()
	op.log.Info("draining", "rooms", srv.Rooms(), "timeout", op.flags.drainTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), op.flags.drainTimeout)
	defer cancel()
	if srv.WaitRooms(ctx, 0) {
		op.log.Info("drained: every match finished")
	} else {
		op.log.Warn("drain deadline passed: ending the rest", "rooms", srv.Rooms())
	}
}

// close releases the database (after the server has ended every room)
// and tells Agones the server is gone.
func (op *operator) close() {
	if op.agones != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		op.agones.Client.Shutdown(ctx)
		cancel()
	}
	if op.db != nil {
		op.db.Close()
	}
}
