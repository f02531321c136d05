package tracker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// MaxTrackers bounds the trackers a client browses (the seed's V28: a
// long list is a social-engineering surface).
const MaxTrackers = 10

// Errors of the client side.
var (
	ErrInsecureURL  = errors.New("tracker: plain http:// is allowed only for loopback trackers; use https://")
	ErrTooManyURLs  = errors.New("tracker: at most 10 trackers")
	ErrTrackerError = errors.New("tracker: request refused")
)

// Client talks to one tracker.
type Client struct {
	base *url.URL
	// HTTP is the client used; nil means http.DefaultClient.
	HTTP *http.Client
	// PublisherToken is presented when publishing, to a tracker that
	// asks for one (its --publisher-tokens).
	PublisherToken string
}

// NewClient returns a client of the tracker at rawURL. It refuses plain
// http:// unless the host is a loopback address or "localhost".
func NewClient(rawURL string) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("tracker URL %q: %w", rawURL, err)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return nil, fmt.Errorf("tracker URL %q: %w", rawURL, ErrInsecureURL)
		}
	default:
		return nil, fmt.Errorf("tracker URL %q: scheme must be https", rawURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return &Client{base: u}, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL is the tracker's base URL.
func (c *Client) URL() string { return c.base.String() }

func (c *Client) do(ctx context.Context, method, path, token string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.String()+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// Answers are small; a tracker that sends more is cut off.
	lr := io.LimitReader(resp.Body, 8<<20)
	if resp.StatusCode >= 300 {
		var e struct {
			Error string `json:"error"`
		}
		json.NewDecoder(lr).Decode(&e)
		err := fmt.Errorf("%w: %s %s: %d %s", ErrTrackerError, method, path, resp.StatusCode, e.Error)
		switch resp.StatusCode {
		case http.StatusNotFound:
			if strings.HasPrefix(path, "/v1/join-codes/") {
				return errors.Join(err, ErrCodeNotFound)
			}
			return errors.Join(err, ErrNotFound)
		case http.StatusUnauthorized:
			return errors.Join(err, ErrBadToken)
		case http.StatusConflict:
			if strings.Contains(e.Error, ErrSourceFull.Error()) {
				return errors.Join(err, ErrSourceFull)
			}
			return errors.Join(err, ErrFull)
		}
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(lr).Decode(out); err != nil {
		return fmt.Errorf("tracker %s: bad answer: %w", c.base, err)
	}
	return nil
}

// Publish lists l and returns its id and token.
func (c *Client) Publish(ctx context.Context, l Listing) (Published, error) {
	var p Published
	err := c.do(ctx, http.MethodPost, "/v1/listings", c.PublisherToken, l, &p)
	return p, err
}

// Update replaces listing id (a heartbeat).
func (c *Client) Update(ctx context.Context, id, token string, l Listing) error {
	return c.do(ctx, http.MethodPut, "/v1/listings/"+url.PathEscape(id), token, l, nil)
}

// Unpublish removes listing id.
func (c *Client) Unpublish(ctx context.Context, id, token string) error {
	return c.do(ctx, http.MethodDelete, "/v1/listings/"+url.PathEscape(id), token, nil, nil)
}

// Browse returns the tracker's listings that pass f.
func (c *Client) Browse(ctx context.Context, f Filter) ([]Listing, error) {
	q := url.Values{}
	for k, v := range map[string]string{"map": f.Map, "mod": f.Mod, "version": f.Version, "network_model": f.NetworkModel,
		"status": f.Status, "region": f.Region, "engine": f.Engine} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.FreeSeats > 0 {
		q.Set("free_seats", strconv.Itoa(f.FreeSeats))
	}
	path := "/v1/listings"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out struct {
		Listings []Listing `json:"listings"`
	}
	if err := c.do(ctx, http.MethodGet, path, "", nil, &out); err != nil {
		return nil, err
	}
	return out.Listings, nil
}

// RegisterCode issues a join code for a room.
func (c *Client) RegisterCode(ctx context.Context, r CodeRequest) (Code, error) {
	var out Code
	err := c.do(ctx, http.MethodPost, "/v1/join-codes", "", r, &out)
	return out, err
}

// ResolveCode returns what a join code names.
func (c *Client) ResolveCode(ctx context.Context, code string) (CodeEntry, error) {
	norm, err := ParseCode(code)
	if err != nil {
		return CodeEntry{}, err
	}
	var out CodeEntry
	err = c.do(ctx, http.MethodGet, "/v1/join-codes/"+url.PathEscape(norm), "", nil, &out)
	return out, err
}
