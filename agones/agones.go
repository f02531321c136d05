// Package agones talks to the Agones SDK sidecar over its documented REST
// API (the sidecar listens on localhost:$AGONES_SDK_HTTP_PORT, 9358 by
// default): Ready once the server listens, Health pings on an interval,
// labels with the server's room counts, self-Allocate when the first room
// starts playing, and Shutdown once drained.
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
}

// Lifecycle drives a server's part of the Agones protocol.
type Lifecycle struct {
	Client *Client
	// Health is the interval of health pings and label updates; 0 means 2 s.
	Health time.Duration
	// Rooms reports the server's rooms now.
	Rooms func() Rooms
	// Logger receives failures; nil discards.
	Logger *slog.Logger
}

// Run marks the server ready (retrying while the sidecar starts), then
// pings health, updates the room labels when they change and
// self-allocates when a room becomes active, until ctx ends. It returns
// when ctx ends or Ready could not be sent for 30 s.
func (l *Lifecycle) Run(ctx context.Context) error {
	log := l.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	every := l.Health
	if every <= 0 {
		every = 2 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	// The sidecar may start after the server: retry Ready.
	for deadline := time.Now().Add(30 * time.Second); ; {
		err := l.Client.Ready(ctx)
		if err == nil {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("agones: ready: %w", errors.Join(err, ctx.Err()))
		}
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	var last *Rooms
	allocated := false
	for {
		if err := l.Client.Health(ctx); err != nil && ctx.Err() == nil {
			log.Warn("agones health ping failed", "err", err)
		}
		if l.Rooms != nil {
			r := l.Rooms()
			if last == nil || *last != r {
				err := errors.Join(l.Client.SetLabel(ctx, "tickwire-active-rooms", strconv.Itoa(r.Active)),
					l.Client.SetLabel(ctx, "tickwire-free-rooms", strconv.Itoa(r.Free)))
				if err == nil {
					last = &r
				} else if ctx.Err() == nil {
					log.Warn("agones labels failed", "err", err)
				}
			}
			if r.Active > 0 && !allocated {
				if err := l.Client.Allocate(ctx); err == nil {
					allocated = true
				} else if ctx.Err() == nil {
					log.Warn("agones allocate failed", "err", err)
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
