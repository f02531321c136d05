package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/predict/predictbot"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
	"github.com/tickwire/tickwire/web/page"
)

// playServer serves the playable page (package web/page) and ln's
// WebSocket endpoint over HTTP: the --play address.
type playServer struct {
	page *page.Page
	hs   *http.Server
	url  string
	wg   sync.WaitGroup
}

// startPlay serves the page on addr. serverKey is what the page's client
// pins (nil: a plaintext server); join chooses each visitor's room.
func startPlay(ctx context.Context, addr string, ln *transport.Listener, serverKey ed25519.PublicKey, join func(r *http.Request) (page.Join, error)) (*playServer, error) {
	key := ""
	if serverKey != nil {
		key = hex.EncodeToString(serverKey)
	}
	p := page.New(page.Config{WebSocket: ln.WebSocketHandler(), Join: func(r *http.Request) (page.Join, error) {
		j, err := join(r)
		j.ServerKey = key
		return j, err
	}})
	if err := p.Prepare(ctx); err != nil {
		return nil, err
	}
	hl, err := net.Listen("tcp", addr)
	if err != nil {
		p.Close()
		return nil, addrFlagError("--play", addr, err)
	}
	ps := &playServer{page: p, hs: &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 10 * time.Second},
		url: "http://" + hl.Addr().String() + "/"}
	ps.wg.Go(func() { _ = ps.hs.Serve(hl) })
	return ps, nil
}

// showElapsed shows what and the seconds elapsed on line, once a
// second, until the returned stop is called (which erases the line).
func showElapsed(line *progressLine, what string) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			line.printf("%s: %.0f s", what, time.Since(start).Seconds())
			select {
			case <-t.C:
			case <-done:
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		line.clear()
	}
}

func (ps *playServer) stop() {
	ps.hs.Close()
	ps.wg.Wait()
	ps.page.Close()
}

// servedKey is the server key a client pins, from its transport config.
func servedKey(cfg transport.Config) ed25519.PublicKey {
	if cfg.Security == nil {
		return nil
	}
	return cfg.Security.ServerKey
}

// publicKey is the public key of a server's identity (nil: plaintext).
func publicKey(sc *transport.SecurityConfig) ed25519.PublicKey {
	if sc == nil || sc.Identity == nil {
		return nil
	}
	return sc.Identity.Public().(ed25519.PublicKey)
}

// joinFromQuery is serve --play's choice of room: ?room=NAME&size=N on
// the page's address, else a room "play" of one player, in an arena of
// the given side (the server's; 0: the default).
func joinFromQuery(arena int) func(r *http.Request) (page.Join, error) {
	return func(r *http.Request) (page.Join, error) { return queryJoin(r, arena) }
}

func queryJoin(r *http.Request, arena int) (page.Join, error) {
	j := page.Join{Room: r.URL.Query().Get("room"), RoomSize: 1, Arena: arena}
	if j.Room == "" {
		j.Room = "play"
	}
	if s := r.URL.Query().Get("size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 255 {
			return j, errors.New("size must be 1..255")
		}
		j.RoomSize = n
	}
	return j, nil
}

// maxVisitors bounds the rooms demo --play runs at once, each with its
// bots.
const maxVisitors = 8

// visitorRooms gives each visitor of demo --play a room of its own which
// bots fill: the room is players+1 seats, the bots take players of them
// and play for at most ticks ticks.
type visitorRooms struct {
	ctx     context.Context
	players int
	arena   int
	ticks   uint64
	dial    dialer
	n       atomic.Int64
	active  atomic.Int64
}

func (v *visitorRooms) join(*http.Request) (page.Join, error) {
	if v.active.Add(1) > maxVisitors {
		v.active.Add(-1)
		return page.Join{}, fmt.Errorf("%d visitors already play: try again later", maxVisitors)
	}
	name := fmt.Sprintf("play-%d", v.n.Add(1))
	size := v.players + 1
	go func() {
		defer v.active.Add(-1)
		predictbot.Play(v.ctx, v.players, v.ticks, v.arena, false, predictbot.Remote(name, size, v.dial))
	}()
	return page.Join{Room: name, RoomSize: size, Arena: v.arena}, nil
}

// printPlay says where to play.
func printPlay(w io.Writer, url string, bots int) {
	fmt.Fprintf(w, "play in a browser: %s (each visitor's room has %d bots; Ctrl-C to stop)\n", url, bots)
}

// runDemoPlay is demo --mode predict --play: the server with the page,
// until ctx ends.
func runDemoPlay(ctx context.Context, f *demoPredictFlags, stdout io.Writer) error {
	model := predictionFile{TickRate: f.tps, MaxRoomSize: f.players + 1, ArenaSize: f.arena, InterestRadius: f.interest}.model()
	d, err := startDemoServer(ctx, &f.demoCommon, server.Config{TickRate: f.tps, Models: []room.Model{model}, DefaultModel: room.Prediction})
	if err != nil {
		return err
	}
	defer d.stop()
	v := &visitorRooms{ctx: ctx, players: f.players, arena: f.arena, ticks: uint64(f.tps) * 600, dial: d.dial}
	stopBuilding := func() {}
	if !page.Embedded() {
		fmt.Fprintln(stdout, "building the WebAssembly client (first run, about 30 s)…")
		stopBuilding = showElapsed(newProgressLine(f.stderr, false), "building the WebAssembly client")
	}
	ps, err := startPlay(ctx, f.play, d.ln, servedKey(d.client), v.join)
	stopBuilding()
	if err != nil {
		return err
	}
	defer ps.stop()
	printPlay(stdout, ps.url, f.players)
	<-ctx.Done()
	return nil
}
