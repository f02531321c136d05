package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/predict/predictbot"
	"github.com/tickwire/tickwire/predict/predictserver"
	"github.com/tickwire/tickwire/transport"

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
	Series     []room.Series    `json:"series"`
	Histograms []room.Histogram `json:"histograms"`
	Map        *struct {
		View     string `json:"view"`
		Entities int    `json:"entities"`
		Drawn    int    `json:"drawn"`
		Seen     int    `json:"seen_cells"`
		Players  []int  `json:"players"`
	} `json:"map"`
	Legends map[string]string `json:"legends"` // each series chart's legend, by name
	Status  string            `json:"status"`
	Empty   string            `json:"empty"` // the rooms table's hint while there are none
}

// TestDashboardInBrowser plays a lockstep, a fog-authoritative and a
// prediction match into one server, opens its dashboard in headless
// Chromium and checks what the page draws: the room is listed, the RTT
// graph has points, and a late order the test causes (one bot's uplink
// delayed by 400 ms for a moment) shows on the order timeline; the fog
// room's map has its entities, with the union of the players' vision
// and with one player's view; the prediction room's correction error
// distribution has data once the test delays a bot's inputs (uplink
// delayed by a second for a second: the server plays those ticks without
// them, and the client corrects). With TICKWIRE_DASHBOARD_SCREENSHOT=FILE.png it saves
// screenshots of the three rooms there (FILE.png, FILE-fog.png,
// FILE-predict.png).
func TestDashboardInBrowser(t *testing.T) {
	browser := chromium()
	if browser == "" {
		t.Skip("chromium not installed (apt-get install chromium): the dashboard's browser test is skipped")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	f := demoCommon{players: 2, tps: 30, latency: 5 * time.Millisecond, jitter: time.Millisecond}
	f.sec.insecure = true
	ls := lockstepserver.New(lockstepserver.Config{})
	models := []room.Model{ls.Model()}
	for _, m := range []mode{&fogMode{}, &predictMode{}} {
		ms, err := m.serverModels(hostOptions{tickRate: f.tps})
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, ms...)
	}
	d, err := startDemoServer(ctx, &f, server.Config{TickRate: f.tps, Models: models, AllowRequestedModel: true})
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
	wg.Go(func() {
		fogclient.RunBots(ctx, fogclient.BotRun{NewBot: rtsBot, Players: 2, Ticks: 60 * 30, Room: "fog", RoomSize: 2,
			Dial: func(ctx context.Context, i int) (*transport.Conn, error) { return d.dial(ctx, 10+i) }, Settle: 10 * time.Second})
	})
	wg.Go(func() {
		predictbot.Play(ctx, 2, 60*30, 0, false, predictbot.Remote("predict", 2, func(ctx context.Context, i int) (*transport.Conn, error) {
			conn, pc, err := d.dialImpaired(ctx, 20+i)
			if err == nil {
				mu.Lock()
				socks[20+i] = pc
				mu.Unlock()
			}
			return conn, err
		}))
	})

	actx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(browser), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 1500))
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	open := func(query, room string) {
		if err := chromedp.Do(bctx, chromedp.Navigate(dashboardURL(hl)+query),
			chromedp.WaitVisible(chromedp.CSS(`#rooms tbody tr[data-room="`+room+`"]`))); err != nil {
			t.Fatalf("the room %q did not appear: %v", room, err)
		}
	}
	screenshot := func(suffix string) {
		path := os.Getenv("TICKWIRE_DASHBOARD_SCREENSHOT")
		if path == "" {
			return
		}
		time.Sleep(2 * time.Second) // a few more samples on the graphs
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(strings.TrimSuffix(path, ".png")+suffix+".png", png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	open("", "demo")

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
	// poll reads #tw-data until ok holds (true) or until is past (false).
	poll := func(until time.Time, ok func(twData) bool) (twData, bool) {
		for {
			data := read()
			if ok(data) {
				return data, true
			}
			if time.Now().After(until) {
				return data, false
			}
			select {
			case <-ctx.Done():
				return data, false
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	waitFor := func(what string, ok func(twData) bool) twData {
		deadline, _ := ctx.Deadline()
		data, seen := poll(deadline, ok)
		if !seen {
			t.Fatalf("%s: not seen before the deadline; last #tw-data: %+v", what, data)
		}
		return data
	}
	// An empty server's page says how to start a room; / on the admin
	// address leads to the page.
	ehl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	empty := server.New(server.Config{TickRate: f.tps, Models: models})
	defer empty.Close()
	wg.Go(func() { serveAdmin(ctx, ehl, empty, d.ln, "") })
	resp, err := http.Get("http://" + ehl.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/dashboard/" || resp.StatusCode != http.StatusOK {
		t.Errorf("/ on the admin address: %s at %s, want the dashboard", resp.Status, resp.Request.URL)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(dashboardURL(ehl)), chromedp.WaitVisible(chromedp.ID("rooms-empty"))); err != nil {
		t.Fatalf("the empty server's page: %v", err)
	}
	waitFor("the empty state", func(d twData) bool {
		return strings.Contains(d.Empty, "tickwire bot --server ADDR --room NAME") && strings.HasPrefix(d.Status, "0 rooms ·")
	})

	open("", "demo")
	waitFor("RTT points for every player", func(d twData) bool {
		return d.Room == "demo" && len(d.RTT) == f.players && len(d.RTT[0].RTTMs) >= 4 && len(d.RTT[1].RTTMs) >= 4
	})
	waitFor("the room count in words", func(d twData) bool { return strings.HasPrefix(d.Status, "3 rooms ·") })
	before := countFlag(waitFor("on-time order arrivals", func(d twData) bool { return countFlag(d, "") > 0 }), "late")

	// Inject lateness: bot 0's submissions leave 400 ms late for half a
	// second, past any tick deadline the relay allows at this latency.
	// Half a second is 15 ticks: at least 5 more late points than the
	// match's own (its start may have had one or two). On a loaded
	// machine the relay may have widened its deadlines: inject again,
	// later each time, until the timeline shows it.
	mu.Lock()
	pc := socks[0]
	mu.Unlock()
	base := netsim.Link{Latency: f.latency, Jitter: f.jitter}
	for late := 400 * time.Millisecond; ; late *= 2 {
		pc.SetLinks(netsim.Link{Latency: late}, base)
		time.Sleep(500 * time.Millisecond)
		pc.SetLinks(base, base)
		if _, seen := poll(time.Now().Add(5*time.Second), func(d twData) bool { return countFlag(d, "late") >= before+5 }); seen {
			break
		}
		if late >= 3200*time.Millisecond {
			waitFor("the injected late orders on the timeline", func(d twData) bool { return countFlag(d, "late") >= before+5 })
		}
	}
	if l := read().Legends[lockstepserver.ArrivalSeries]; !strings.Contains(l, "red: late") {
		t.Errorf("the order arrivals' legend %q names no late points", l)
	}
	screenshot("")

	// The fog room's map: every entity, the union of the players'
	// vision; then player 1's view, which shows only what it sees.
	open("?room=fog", "fog")
	waitFor("the fog map's entities", func(d twData) bool {
		return d.Room == "fog" && d.Map != nil && d.Map.View == "all" && d.Map.Entities > 20 && d.Map.Drawn == d.Map.Entities &&
			d.Map.Seen > 0 && len(d.Map.Players) == 2
	})
	open("?room=fog&view=1", "fog")
	waitFor("player 1's view of the fog map", func(d twData) bool {
		return d.Room == "fog" && d.Map != nil && d.Map.View == "1" && d.Map.Drawn > 0 && d.Map.Drawn < d.Map.Entities
	})
	screenshot("-fog")

	// The prediction room: delay one bot's inputs past their ticks, and
	// its corrections reach the dashboard's distribution.
	open("?room=predict", "predict")
	mu.Lock()
	pc = socks[20]
	mu.Unlock()
	pc.SetLinks(netsim.Link{Latency: time.Second}, base)
	time.Sleep(time.Second)
	pc.SetLinks(base, base)
	injected := time.Now()
	waitFor("the prediction room's correction distribution", func(d twData) bool {
		if d.Room != "predict" {
			return false
		}
		for _, h := range d.Histograms {
			for _, b := range h.Buckets {
				if h.Name == predictserver.CorrectionErrorHistogram && b.Count > 0 {
					return true
				}
			}
		}
		return false
	})
	t.Logf("corrections on the dashboard %v after the inputs' delay", time.Since(injected).Round(time.Millisecond))
	for name, l := range read().Legends { // no late or idle points here: no such legend
		if strings.Contains(l, "late") || strings.Contains(l, "idle") {
			t.Errorf("the prediction room's %s legend %q names flags its points do not carry", name, l)
		}
	}
	screenshot("-predict")
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
