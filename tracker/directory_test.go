package tracker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// fakeClock is a settable clock for virtual-time tests.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newClock() *fakeClock { return &fakeClock{t: time.Unix(1_800_000_000, 0)} }

func sample(room string) Listing {
	return Listing{Host: "127.0.0.1:7777", Room: room, Map: MapMeta{Name: "Dunes", Seats: 4},
		Rules: RulesMeta{Mod: "rts", Version: "1.2"}, Players: []Player{{Name: "ann"}},
		Status: StatusWaiting, Engine: "tickwire", NetworkModel: "lockstep", Region: "eu-west"}
}

func TestPublishBrowseExpire(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	d := NewDirectory(Config{Now: clk.now, TTL: 30 * time.Second})
	a, err := d.Publish(ctx, sample("a"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := d.Publish(ctx, sample("b"))
	if ls, _ := d.Browse(ctx, Filter{}); len(ls) != 2 {
		t.Fatalf("browse = %d listings", len(ls))
	}
	// b heartbeats every 20 s, a never: at 40 s only b is left.
	for range 2 {
		clk.advance(20 * time.Second)
		if _, err := d.Update(ctx, b.ID, b.Token, sample("b")); err != nil {
			t.Fatal(err)
		}
	}
	ls, _ := d.Browse(ctx, Filter{})
	if len(ls) != 1 || ls[0].Room != "b" || !ls[0].Expires.Equal(clk.t.Add(30*time.Second)) {
		t.Fatalf("after 40 s: %+v", ls)
	}
	if _, err := d.Update(ctx, a.ID, a.Token, sample("a")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("heartbeat of an expired listing = %v", err)
	}
	// Exactly at the TTL the listing is gone.
	clk.advance(30 * time.Second)
	if ls, _ := d.Browse(ctx, Filter{}); len(ls) != 0 {
		t.Fatalf("listing outlived its TTL: %+v", ls)
	}
}

func TestTokens(t *testing.T) {
	ctx := context.Background()
	d := NewDirectory(Config{Now: newClock().now})
	p, _ := d.Publish(ctx, sample("a"))
	q, _ := d.Publish(ctx, sample("b"))
	for _, tok := range []string{"", "x", q.Token, p.Token + "0", strings.ToUpper(p.Token)} {
		if _, err := d.Update(ctx, p.ID, tok, sample("a")); !errors.Is(err, ErrBadToken) {
			t.Errorf("update with token %q = %v", tok, err)
		}
		if err := d.Unpublish(ctx, p.ID, tok); !errors.Is(err, ErrBadToken) {
			t.Errorf("unpublish with token %q = %v", tok, err)
		}
	}
	if err := d.Unpublish(ctx, p.ID, p.Token); err != nil {
		t.Fatal(err)
	}
}

func TestListingLimit(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	d := NewDirectory(Config{Now: clk.now, MaxListings: 3})
	for i := range 3 {
		if _, err := d.Publish(ctx, sample(string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Publish(ctx, sample("d")); !errors.Is(err, ErrFull) {
		t.Fatalf("fourth listing = %v", err)
	}
	clk.advance(31 * time.Second) // the three expire and make room
	if _, err := d.Publish(ctx, sample("d")); err != nil {
		t.Fatal(err)
	}
}

func TestFilters(t *testing.T) {
	ctx := context.Background()
	d := NewDirectory(Config{Now: newClock().now})
	full := sample("full")
	full.Players = []Player{{"a"}, {"b"}, {"c"}, {"d"}}
	full.Status = StatusFull
	fog := sample("fog")
	fog.NetworkModel, fog.Region, fog.Map.Name = "fog_authoritative", "us-east", "Isles"
	for _, l := range []Listing{sample("plain"), full, fog} {
		if _, err := d.Publish(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		f    Filter
		want string
	}{
		{Filter{NetworkModel: "FOG_AUTHORITATIVE"}, "fog"},
		{Filter{Region: "eu-west", FreeSeats: 1}, "plain"},
		{Filter{Status: StatusFull}, "full"},
		{Filter{Map: "isles", Mod: "rts", Version: "1.2", Engine: "tickwire"}, "fog"},
		{Filter{FreeSeats: 4}, ""},
	}
	for _, c := range cases {
		ls, _ := d.Browse(ctx, c.f)
		var rooms []string
		for _, l := range ls {
			rooms = append(rooms, l.Room)
		}
		if strings.Join(rooms, ",") != c.want {
			t.Errorf("%+v: %v, want %s", c.f, rooms, c.want)
		}
	}
}

func TestValidateNamesTheField(t *testing.T) {
	cases := map[string]func(*Listing){
		"host":          func(l *Listing) { l.Host = "nope" },
		"map.seats":     func(l *Listing) { l.Map.Seats = 0 },
		"players":       func(l *Listing) { l.Players = make([]Player, 5) },
		"status":        func(l *Listing) { l.Status = "open" },
		"server_key":    func(l *Listing) { l.ServerKey = "abcd" },
		"room":          func(l *Listing) { l.Room = strings.Repeat("r", 65) },
		"engine":        func(l *Listing) { l.Engine = "" },
		"network_model": func(l *Listing) { l.NetworkModel = strings.Repeat("n", 129) },
		"players[0].name": func(l *Listing) {
			l.Players[0].Name = strings.Repeat("x", 200)
		},
	}
	for field, mutate := range cases {
		l := sample("r")
		mutate(&l)
		var fe *FieldError
		if err := l.Validate(); !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: Validate = %v", field, err)
		}
	}
	l := sample("r")
	l.Host = "TICK-7K3M"
	if err := l.Validate(); err != nil {
		t.Errorf("a join code as host: %v", err)
	}
}

func TestJoinCodes(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	d := NewDirectory(Config{Now: clk.now})
	c, err := d.RegisterCode(ctx, CodeRequest{Host: "127.0.0.1:7777", Room: "r", NetworkModel: "lockstep"})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Expires.Equal(clk.t.Add(10 * time.Minute)) {
		t.Errorf("default expiry %v", c.Expires.Sub(clk.t))
	}
	lower := strings.ToLower(strings.ReplaceAll(c.Code, "-", ""))
	e, err := d.ResolveCode(ctx, lower)
	if err != nil || e.Room != "r" || e.Host != "127.0.0.1:7777" {
		t.Fatalf("resolve %q = %+v, %v", lower, e, err)
	}
	if _, err := d.ResolveCode(ctx, c.Code); !errors.Is(err, ErrCodeNotFound) {
		t.Fatalf("single-use code resolved twice: %v", err)
	}
	m, _ := d.RegisterCode(ctx, CodeRequest{Host: "127.0.0.1:7777", Room: "r", MultiUse: true, TTLSeconds: 60})
	for range 3 {
		if _, err := d.ResolveCode(ctx, m.Code); err != nil {
			t.Fatal(err)
		}
	}
	clk.advance(time.Minute)
	if _, err := d.ResolveCode(ctx, m.Code); !errors.Is(err, ErrCodeNotFound) {
		t.Fatalf("expired multi-use code = %v", err)
	}
	if _, err := d.RegisterCode(ctx, CodeRequest{Host: "TICK-7K3M"}); err == nil {
		t.Error("a code naming a code was issued")
	}
	if _, err := d.ResolveCode(ctx, "TICK-0000"); !errors.Is(err, ErrBadCode) {
		t.Errorf("look-alike digits = %v", err)
	}
}

func TestCodeAlphabet(t *testing.T) {
	for _, bad := range "01ILOU" {
		if strings.ContainsRune(codeAlphabet, bad) {
			t.Errorf("alphabet holds look-alike %c", bad)
		}
	}
	seen := map[byte]int{}
	for range 3000 {
		c := NewCode()
		if p, err := ParseCode(c); err != nil || p != c {
			t.Fatalf("NewCode %q does not parse: %q %v", c, p, err)
		}
		for i := len(codePrefix); i < len(c); i++ {
			seen[c[i]]++
		}
	}
	// 12,000 draws over 30 letters: each about 400; every letter is used
	// and none is far off (a biased draw would show here).
	for i := range len(codeAlphabet) {
		if n := seen[codeAlphabet[i]]; n < 250 || n > 550 {
			t.Errorf("letter %c drawn %d times of 12,000", codeAlphabet[i], n)
		}
	}
}

// TestUpdateKeepsServerKey: a heartbeat cannot swap a listing's server
// key (the key a verification proved, and the per-key cap counted).
func TestUpdateKeepsServerKey(t *testing.T) {
	ctx := context.Background()
	d := NewDirectory(Config{Now: newClock().now})
	l := sample("r")
	l.ServerKey = strings.Repeat("ab", 32)
	p, err := d.PublishFrom(ctx, "192.0.2.1", l)
	if err != nil {
		t.Fatal(err)
	}
	l.ServerKey = strings.Repeat("cd", 32)
	var fe *FieldError
	if _, err := d.Update(ctx, p.ID, p.Token, l); !errors.As(err, &fe) || !strings.Contains(err.Error(), "server_key") {
		t.Fatalf("a heartbeat with another key: %v", err)
	}
	l.ServerKey = strings.Repeat("ab", 32)
	if _, err := d.Update(ctx, p.ID, p.Token, l); err != nil {
		t.Fatalf("a heartbeat: %v", err)
	}
}

// TestDefaultSourceCaps: by default one address holds 16 listings and one
// server key 64.
func TestDefaultSourceCaps(t *testing.T) {
	ctx := context.Background()
	d := NewDirectory(Config{Now: newClock().now})
	for i := range 17 {
		_, err := d.PublishFrom(ctx, "192.0.2.1", sample(fmt.Sprint("a", i)))
		if want := i == 16; errors.Is(err, ErrSourceFull) != want || (!want && err != nil) {
			t.Fatalf("listing %d of one address: %v", i+1, err)
		}
	}
	for i := range 65 {
		l := sample(fmt.Sprint("k", i))
		l.ServerKey = strings.Repeat("ab", 32)
		_, err := d.PublishFrom(ctx, fmt.Sprintf("198.51.100.%d", i), l)
		if want := i == 64; errors.Is(err, ErrSourceFull) != want || (!want && err != nil) {
			t.Fatalf("listing %d of one key: %v", i+1, err)
		}
	}
}
