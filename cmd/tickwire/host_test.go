package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/internal/loopback"
)

type joinedSummary struct {
	Players []struct {
		Ticks     uint64 `json:"ticks"`
		FinalHash string `json:"final_hash"`
	} `json:"players"`
	AllInSync bool   `json:"all_in_sync"`
	Path      string `json:"path"`
}

// TestHostAndJoinByURI: rendezvous, host and bot --join over loopback
// sockets. The host's first line is {"join": URI}; the joiner plays the
// match through it in sync with the host, and both report the path
// (punched: loopback has no NAT, and the probes prove it); --qr writes a
// PNG.
func TestHostAndJoinByURI(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rv := loopback.ClosedUDP(t)
	go runRendezvous(ctx, []string{"--listen", rv}, io.Discard, io.Discard)
	pngFile := filepath.Join(t.TempDir(), "join.png")
	lines, join, hostDone := startHost(t, ctx, "--rendezvous", rv, "--ticks", "40", "--json", "--qr", "--qr-png", pngFile)
	if !strings.HasPrefix(join, "tickwire://join/TICK-") || !strings.HasSuffix(join, "@"+rv) {
		t.Fatalf("join URI %q", join)
	}
	var botOut bytes.Buffer
	if err := run(ctx, []string{"bot", "--join", join, "--players", "1", "--ticks", "40", "--json"}, &botOut, io.Discard); err != 0 {
		t.Fatalf("bot exited %d: %s", err, botOut.String())
	}
	var joiner, host joinedSummary
	if err := json.Unmarshal(botOut.Bytes(), &joiner); err != nil {
		t.Fatal(err)
	}
	if !lines.Scan() {
		t.Fatalf("no host summary: %v", <-hostDone)
	}
	if err := json.Unmarshal(lines.Bytes(), &host); err != nil {
		t.Fatal(err)
	}
	if err := <-hostDone; err != nil {
		t.Fatal(err)
	}
	if !joiner.AllInSync || !host.AllInSync || joiner.Path != "punched" || host.Path != "punched" ||
		joiner.Players[0].FinalHash != host.Players[0].FinalHash || joiner.Players[0].Ticks != 40 {
		t.Fatalf("joiner %+v, host %+v", joiner, host)
	}
	f, err := os.Open(pngFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil || img.Bounds().Dx() != 256 {
		t.Fatalf("the QR PNG: %v, %v", img.Bounds(), err)
	}
}

// TestHostAddrLimitFlags: host takes serve's per-address limit flags, so
// that players behind one address can all join a listen server.
func TestHostAddrLimitFlags(t *testing.T) {
	for _, parse := range []func([]string) (securityFlags, error){
		func(a []string) (securityFlags, error) {
			f, err := parseHostFlags(append([]string{"--rendezvous", "127.0.0.1:1"}, a...), io.Discard)
			return f.sec, err
		},
		func(a []string) (securityFlags, error) { f, err := parseServeFlags(a, io.Discard); return f.sec, err },
	} {
		s, err := parse([]string{"--max-conns-per-addr", "20", "--exempt-loopback"})
		if l := s.limits(0); err != nil || l.MaxPerIP != 20 || !l.ExemptLoopback {
			t.Fatalf("limits %+v, %v", l, err)
		}
		if s, _ := parse(nil); s.limits(0).MaxPerIP != 5 {
			t.Fatalf("default per-address connections %d, want 5 (secure's)", s.limits(0).MaxPerIP)
		}
		if _, err := parse([]string{"--max-conns-per-addr", "0"}); !errors.Is(err, errUsage) {
			t.Fatalf("--max-conns-per-addr 0: %v", err)
		}
	}
}

// TestJoinerToldWhyHostGaveUp: a host of three that gives up waiting
// (--wait) tells the joiner that came why its room closed, and the
// joiner says so.
func TestJoinerToldWhyHostGaveUp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rv := loopback.ClosedUDP(t)
	go runRendezvous(ctx, []string{"--listen", rv}, io.Discard, io.Discard)
	lines, join, hostDone := startHost(t, ctx, "--rendezvous", rv, "--players", "3", "--wait", "3s", "--json")
	go func() {
		for lines.Scan() {
		}
	}()
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"bot", "--join", join, "--players", "1", "--ticks", "40"}, &out, &errOut)
	if code == 0 || !strings.Contains(out.String()+errOut.String(), "the host stopped waiting") {
		t.Fatalf("joiner exit %d: %s%s", code, out.String(), errOut.String())
	}
	<-hostDone
}

// TestJoinerToldWhyNoRoute: a joiner whose code no host admits in time
// says so (the host may have gone, or the rendezvous is out of reach),
// not just "context deadline exceeded".
func TestJoinerToldWhyNoRoute(t *testing.T) {
	f := botCommon{joinURI: "tickwire://join/TICK-ABCD@" + loopback.ClosedUDP(t), players: 1, joinTimeout: time.Second}
	if err := f.resolveJoinURI(); err == nil || !strings.Contains(err.Error(), "the host never admitted this joiner") {
		t.Fatalf("resolveJoinURI: %v", err)
	}
}

// startHost runs "tickwire host args..." (with --json) and returns its
// standard output's lines after the first, the join URI that first line
// gives, and the host's end.
func startHost(t *testing.T, ctx context.Context, args ...string) (*bufio.Scanner, string, <-chan error) {
	t.Helper()
	pr, pw := io.Pipe()
	hostDone := make(chan error, 1)
	go func() {
		err := runHost(ctx, args, pw, io.Discard)
		pw.CloseWithError(err)
		hostDone <- err
	}()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() {
		t.Fatalf("no join line: %v", <-hostDone)
	}
	var first map[string]string
	if err := json.Unmarshal(lines.Bytes(), &first); err != nil {
		t.Fatalf("first line %q: %v", lines.Text(), err)
	}
	return lines, first["join"], hostDone
}
