package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tickwire/tickwire/lockstep/lockstepbot"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
)

// twData is what the page writes into #tw-data, as far as the test reads
// it.
type twData struct {
	Room string `json:"room"`
	RTT  []struct {
		Player int       `json:"player"`
		RTTMs  []float64 `json:"rtt_ms"`
	} `json:"rtt"`
	Series []room.Series `json:"series"`
}

// TestDashboardInBrowser plays a lockstep demo match into a server,
// opens its dashboard in headless Chromium and checks what the page
// draws: the room is listed, the RTT graph has points, and a late order
// the test causes (one bot's uplink delayed by 400 ms for a moment)
// shows on the order timeline. With TICKWIRE_DASHBOARD_SCREENSHOT set it
// saves a screenshot of the page there.
func TestDashboardInBrowser(t *testing.T) {
	browser := chromium()
	if browser == "" {
		t.Skip("chromium not installed (apt-get install chromium): the dashboard's browser test is skipped")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()

	f := demoCommon{players: 2, tps: 30, latency: 5 * time.Millisecond, jitter: time.Millisecond}
	f.sec.insecure = true
	ls := lockstepserver.New(lockstepserver.Config{})
	d, err := startDemoServer(ctx, &f, server.Config{TickRate: f.tps, Models: []room.Model{ls.Model()}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.stop()
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { serveAdmin(ctx, hl, d.srv, d.ln, "") })

	var mu sync.Mutex
	socks := map[int]*netsim.PacketConn{}
	join := func(ctx context.Context, i int) (lockstepbot.Client, error) {
		conn, pc, err := d.dialImpaired(ctx, i)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		socks[i] = pc
		mu.Unlock()
		return joinRoom(ctx, conn, "demo", f.players)
	}
	wg.Go(func() {
		lockstepbot.Run(ctx, lockstepbot.Config{Players: f.players, Ticks: 30 * 30, Join: join, Light: true})
	})

	actx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(browser), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 1500))
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx, chromedp.Navigate(dashboardURL(hl)),
		chromedp.WaitVisible(chromedp.CSS(`#rooms tbody tr[data-room="demo"]`))); err != nil {
		t.Fatalf("the room did not appear: %v", err)
	}

	read := func() twData {
		text, err := chromedp.Run(bctx, chromedp.TextContent(chromedp.ID("tw-data")))
		if err != nil {
			t.Fatal(err)
		}
		var data twData
		if text != "" {
			if err := json.Unmarshal([]byte(text), &data); err != nil {
				t.Fatalf("#tw-data: %v: %q", err, text)
			}
		}
		return data
	}
	waitFor := func(what string, ok func(twData) bool) twData {
		for {
			data := read()
			if ok(data) {
				return data
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%s: not seen before the deadline; last #tw-data: %+v", what, data)
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	waitFor("RTT points for every player", func(d twData) bool {
		return d.Room == "demo" && len(d.RTT) == f.players && len(d.RTT[0].RTTMs) >= 4 && len(d.RTT[1].RTTMs) >= 4
	})
	before := countFlag(waitFor("on-time order arrivals", func(d twData) bool { return countFlag(d, "") > 0 }), "late")

	// Inject lateness: bot 0's submissions leave 400 ms late for half a
	// second, past any tick deadline the relay allows at this latency.
	mu.Lock()
	pc := socks[0]
	mu.Unlock()
	base := netsim.Link{Latency: f.latency, Jitter: f.jitter}
	pc.SetLinks(netsim.Link{Latency: 400 * time.Millisecond}, base)
	time.Sleep(500 * time.Millisecond)
	pc.SetLinks(base, base)
	// Half a second is 15 ticks: at least 5 more late points than the
	// match's own (its start may have had one or two).
	waitFor("the injected late orders on the timeline", func(d twData) bool { return countFlag(d, "late") >= before+5 })

	if path := os.Getenv("TICKWIRE_DASHBOARD_SCREENSHOT"); path != "" {
		time.Sleep(2 * time.Second) // a few more samples on the graphs
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// countFlag counts the order-arrival points flagged flag.
func countFlag(d twData, flag string) int {
	n := 0
	for _, s := range d.Series {
		if s.Name != lockstepserver.ArrivalSeries {
			continue
		}
		for _, p := range s.Points {
			if p.Flag == flag {
				n++
			}
		}
	}
	return n
}
