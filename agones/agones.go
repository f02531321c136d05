// Package agones talks to the Agones SDK sidecar over its documented REST
// API (the sidecar listens on localhost:$AGONES_SDK_HTTP_PORT, 9358 by
// default): Ready once the server listens, Health pings on an interval,
// labels with the server's room counts, self-Allocate when a room starts
// playing, Ready again (or Shutdown, one match per server) once no room
// plays any more, and Shutdown once drained. A failed call is retried with
// exponential backoff for as long as the server runs.
//
//	POST /ready  /health  /allocate  /shutdown   body {}
//	PUT  /metadata/label                          body {"key": K, "value": V}
//	GET  /gameserver                              → {"status": {"state": "Ready"|"Allocated"|…}, …}
//
// Agones prefixes SDK labels with "agones.dev/sdk-"; this package sets
// "tickwire-active-rooms" and "tickwire-free-rooms".
package agones

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// EnvPort is the variable Agones sets to the sidecar's HTTP port.
const EnvPort = "AGONES_SDK_HTTP_PORT"

// Client is the SDK sidecar's REST API.
type Client struct {
	// Base is the sidecar's URL, e.g. http://localhost:9358.
	Base string
	// HTTP is the client used; nil means one with a 5 s timeout.
	HTTP *http.Client
}

// FromEnv returns a client of the sidecar named by the environment, and
// whether the environment names one.
func FromEnv() (*Client, bool) {
	port := os.Getenv(EnvPort)
	if port == "" {
		return &Client{Base: "http://localhost:9358"}, false
	}
	return &Client{Base: "http://localhost:" + port}, true
}

func (c *Client) call(ctx context.Context, method, path string, in, out any) error {
	body := []byte("{}")
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	var rd io.Reader
	if method != http.MethodGet {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("agones %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("agones %s: %s: %s", path, resp.Status, bytes.TrimSpace(msg))
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out)
}

// Ready marks the game server ready to take players.
func (c *Client) Ready(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/ready", nil, nil)
}

// Health sends one health ping.
func (c *Client) Health(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/health", nil, nil)
}

// Allocate self-allocates the game server.
func (c *Client) Allocate(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/allocate", nil, nil)
}

// Shutdown asks Agones to shut the game server down.
func (c *Client) Shutdown(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/shutdown", nil, nil)
}

// SetLabel sets a label (Agones prefixes it with agones.dev/sdk-).
func (c *Client) SetLabel(ctx context.Context, key, value string) error {
	return c.call(ctx, http.MethodPut, "/metadata/label", map[string]string{"key": key, "value": value}, nil)
}

// State returns the GameServer's state (Ready, Allocated, Shutdown, …).
func (c *Client) State(ctx context.Context) (string, error) {
	var gs struct {
		Status struct {
			State string `json:"state"`
		} `json:"status"`
	}
	err := c.call(ctx, http.MethodGet, "/gameserver", nil, &gs)
	return gs.Status.State, err
}

// Rooms is what the server reports to Agones.
type Rooms struct {
	Active, Free int
	// Started counts the matches started since the server started, so
	// that a match that began and ended between two looks still counts.
	Started uint64
}

// AfterMatch is what a server that was allocated does once its last
// match ended (no room plays any more).
type AfterMatch int

const (
	// Reuse marks the server Ready again: Agones may allocate it anew,
	// scale it down or roll it out (the default).
	Reuse AfterMatch = iota
	// Shutdown asks Agones to shut the server down: one match per pod.
	Shutdown
)

// ErrNotReady is what Lifecycle.Err returns before the sidecar took the
// first Ready.
var ErrNotReady = errors.New("agones: not marked ready yet")

// Lifecycle drives a server's part of the Agones protocol.
type Lifecycle struct {
	Client *Client
	// Health is the interval of health pings and label updates; 0 means 2 s.
	Health time.Duration
	// Backoff bounds the wait before retrying a failed SDK call: it starts
	// at Backoff[0] (0: 250 ms) and doubles up to Backoff[1] (0: 30 s).
	Backoff [2]time.Duration
	// Rooms reports the server's rooms now.
	Rooms func() Rooms
	// AfterMatch says what an allocated server does once no room plays.
	AfterMatch AfterMatch
	// Drain, when set, is called before Shutdown (AfterMatch Shutdown) so
	// that no new room starts on a server about to go.
	Drain func()
	// Logger receives failures; nil discards.
	Logger *slog.Logger

	mu  sync.Mutex
	err error // the last SDK call's failure; ErrNotReady before Ready
	set bool  // err was set once (the zero Lifecycle has not run)
}

// Err is why the server is not in touch with Agones: ErrNotReady before
// the first Ready went through, the last SDK call's failure while the
// sidecar does not answer, nil once a call succeeds again. A readiness
// probe fails while it is not nil.
func (l *Lifecycle) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.set {
		return ErrNotReady
	}
	return l.err
}

func (l *Lifecycle) setErr(err error) {
	l.mu.Lock()
	l.err, l.set = err, true
	l.mu.Unlock()
}

// phase is where the server is in the Agones protocol.
type phase int

const (
	starting  phase = iota // Ready not yet taken
	ready                  // Ready: waiting for a match
	allocated              // a match plays (self-allocated)
	shutdown               // Shutdown taken: nothing more to say
)

// lifecycle is Run's state between steps.
type lifecycle struct {
	*Lifecycle
	phase   phase
	labels  *Rooms // the labels last set
	started uint64 // Rooms.Started when last allocated
}

// step makes the SDK calls the server's state asks for now and returns
// the first failure (the rest wait for the next step).
func (s *lifecycle) step(ctx context.Context) error {
	if s.phase == starting {
		if err := s.Client.Ready(ctx); err != nil {
			return err
		}
		s.phase = ready
	}
	if err := s.Client.Health(ctx); err != nil {
		return err
	}
	if s.Rooms == nil {
		return nil
	}
	r := s.Rooms()
	if s.labels == nil || s.labels.Active != r.Active || s.labels.Free != r.Free {
		if err := s.Client.SetLabel(ctx, "tickwire-active-rooms", strconv.Itoa(r.Active)); err != nil {
			return err
		}
		if err := s.Client.SetLabel(ctx, "tickwire-free-rooms", strconv.Itoa(r.Free)); err != nil {
			return err
		}
		s.labels = &r
	}
	switch {
	case s.phase == ready && (r.Active > 0 || r.Started > s.started):
		if err := s.Client.Allocate(ctx); err != nil {
			return err
		}
		s.phase, s.started = allocated, r.Started
	case s.phase == allocated && r.Active == 0 && s.AfterMatch == Shutdown:
		if s.Drain != nil {
			s.Drain()
		}
		if err := s.Client.Shutdown(ctx); err != nil {
			return err
		}
		s.phase = shutdown
		s.log().Info("agones: last match over, shutdown asked (one match per server)")
	case s.phase == allocated && r.Active == 0:
		if err := s.Client.Ready(ctx); err != nil {
			return err
		}
		s.phase, s.started = ready, r.Started
		s.log().Info("agones: last match over, ready again")
	}
	return nil
}

func (l *Lifecycle) log() *slog.Logger {
	if l.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.Logger
}

// backoff is the wait after the nth failure in a row (n ≥ 1): Backoff[0]
// doubled n−1 times, at most Backoff[1].
func (l *Lifecycle) backoff(n int) time.Duration {
	lo, hi := l.Backoff[0], l.Backoff[1]
	if lo <= 0 {
		lo = 250 * time.Millisecond
	}
	if hi <= 0 {
		hi = 30 * time.Second
	}
	wait := lo
	for ; n > 1 && wait < hi; n-- {
		wait *= 2
	}
	return min(wait, hi)
}

// logged reports whether the nth failure in a row is logged: the 1st,
// 2nd, 4th, 8th, … so that a sidecar gone for hours logs a few lines.
func logged(n int) bool { return n&(n-1) == 0 }

// Run marks the server ready, then pings health, updates the room labels
// when they change, self-allocates when a room starts playing and, once
// no room plays any more, marks the server Ready again or asks for its
// shutdown (AfterMatch), until ctx ends. A failed SDK call (the sidecar
// not started yet, or gone) is retried with exponential backoff for as
// long as ctx lasts; Err tells readiness probes meanwhile. Run returns
// when ctx ends.
func (l *Lifecycle) Run(ctx context.Context) {
	every := l.Health
	if every <= 0 {
		every = 2 * time.Second
	}
	s := &lifecycle{Lifecycle: l}
	failures := 0
	for {
		err := s.step(ctx)
		if ctx.Err() != nil {
			return
		}
		switch {
		case err != nil:
			failures++
			wait := l.backoff(failures)
			if logged(failures) {
				s.log().Warn("agones sdk call failed, retrying", "err", err, "failures", failures, "retry_in", wait)
			}
			l.setErr(err)
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			continue
		case failures > 0:
			s.log().Info("agones sdk answers again", "failures", failures)
		}
		failures = 0
		if s.phase == starting {
			l.setErr(ErrNotReady)
		} else {
			l.setErr(nil)
		}
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
