package main

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBotRejoinAndObserver is the black-box run of reconnection and
// observers: "tickwire serve" and four "tickwire bot --players 1
// --room-size 4" runs of one room, one of which vanishes at tick 60 and
// rejoins 1 s later (--drop-at-tick, --rejoin-after), and one "tickwire
// bot --observer --delay-ticks 90" run. Every final hash, the rejoined
// bot's and the observer's included, is the same; the rejoined bot
// reports one reconnection. Every run, the observer's too, receives the
// certified match result and verifies it.
func TestBotRejoinAndObserver(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 8 s of real time")
	}
	stop, udp, _ := startServer(t, "serve", "--exempt-loopback") // six connections from one address
	defer stop()
	const ticks = "240"
	outs := make([]string, 5)
	var players, all sync.WaitGroup
	for i := range 4 {
		args := []string{"bot", "--server", udp, "--room", "r", "--players", "1", "--room-size", "4", "--ticks", ticks, "--json"}
		if i == 1 {
			args = append(args, "--drop-at-tick", "60", "--rejoin-after", "1s")
		}
		players.Go(func() {
			code, out, errOut := runCmd(t, args...)
			if code != 0 {
				t.Errorf("bot %d exits %d: %s%s", i, code, out, errOut)
			}
			outs[i] = out
		})
	}
	playersDone := make(chan struct{})
	all.Go(func() { players.Wait(); close(playersDone) })
	all.Go(func() {
		outs[4] = watchWhilePlaying(t, playersDone, "bot", "--server", udp, "--room", "r", "--observer", "--delay-ticks", "90", "--ticks", ticks, "--json")
	})
	all.Wait()
	if t.Failed() {
		return
	}
	var hash, cert any
	for i, out := range outs {
		// Every run, the observer's too, receives the match's certified
		// result and checks it against the key the server proved.
		var top map[string]any
		if err := json.Unmarshal([]byte(out), &top); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if i == 0 {
			cert = top["certificate"]
		}
		if check, _ := top["certificate_check"].(map[string]any); cert == nil || !reflect.DeepEqual(top["certificate"], cert) ||
			check["valid"] != true || check["against"] != againstHandshake {
			t.Errorf("run %d: certificate %v, check %v; want the players' result, valid against the handshake's key", i, top["certificate"], top["certificate_check"])
		}
		ps := checkBotJSON(t, out, 1)
		p := ps[0]
		if i == 0 {
			hash = p["final_hash"]
		}
		if p["final_hash"] != hash {
			t.Errorf("run %d: final hash %v, want %v", i, p["final_hash"], hash)
		}
		wantReconnects := 0.0
		if i == 1 {
			wantReconnects = 1
		}
		if p["reconnects"] != wantReconnects || (i == 1 && !(p["reconnect_ms"].(float64) > 0)) {
			t.Errorf("run %d: reconnects %v in %v ms, want %v", i, p["reconnects"], p["reconnect_ms"], wantReconnects)
		}
		if _, observer := p["observer"]; observer != (i == 4) || (i == 4 && p["observer"] != true) {
			t.Errorf("run %d: observer %v", i, p["observer"])
		}
	}
}

func TestBotRejoinFlags(t *testing.T) {
	f, err := parseBotFlags([]string{"--server", "a:1", "--room", "r", "--observer", "--delay-ticks", "90", "--ticks", "9"}, io.Discard)
	if err != nil || !f.rejoin.observer || f.players != 1 || f.rejoin.delayTicks != 90 {
		t.Fatalf("parsed %+v, %v", f, err)
	}
	for _, bad := range [][]string{
		{"--server", "a:1", "--room", "r", "--observer", "--players", "2", "--ticks", "9"},
		{"--server", "a:1", "--room", "r", "--observer"},
		{"--server", "a:1", "--room", "r", "--players", "1", "--ticks", "9", "--delay-ticks", "3"},
		{"--server", "a:1", "--room", "r", "--observer", "--ticks", "9", "--drop-at-tick", "3"},
	} {
		if _, err := parseBotFlags(bad, io.Discard); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
}

// TestDemoReconnect: "demo --reconnect" drops the second bot a third into
// the match and brings it back; everyone ends in sync and that bot
// reports one reconnection. Every run, the observer's too, receives the
// certified match result and verifies it.
func TestDemoReconnect(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 7 s of real time")
	}
	code, out, errOut := runCmd(t, "demo", "--reconnect", "--players", "3", "--ticks", "150", "--latency", "10ms", "--jitter", "3ms", "--loss", "0.02", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	reconnects := 0.0
	for _, p := range checkBotJSON(t, out, 3) {
		reconnects += p["reconnects"].(float64)
	}
	if reconnects != 1 {
		t.Errorf("%v reconnections, want 1", reconnects)
	}
}

// watchWhilePlaying runs a spectator or observer bot (args) until it
// joins and plays: it retries while the room is not playing yet, for as
// long as the players play (until playersDone), however slow the machine.
// It returns the bot's output, or "" after reporting a failure.
func watchWhilePlaying(t *testing.T, playersDone <-chan struct{}, args ...string) string {
	for {
		code, out, errOut := runCmd(t, args...)
		if code == 0 {
			return out
		}
		select {
		case <-playersDone:
			t.Errorf("%v exits %d after the players ended: %s%s", args, code, out, errOut)
			return ""
		default:
		}
		if !strings.Contains(out+errOut, "not playing") {
			t.Errorf("%v exits %d: %s%s", args, code, out, errOut)
			return ""
		}
		time.Sleep(50 * time.Millisecond) // the room has not started yet
	}
}
