package dashboard

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
)

// Config configures a Dashboard. The zero value is usable.
type Config struct {
	// Interval is how often the server is sampled [250ms].
	Interval time.Duration
	// History is how many RTT samples each player's series keeps [120].
	History int
}

func (c Config) withDefaults() Config {
	if c.Interval <= 0 {
		c.Interval = 250 * time.Millisecond
	}
	if c.History <= 0 {
		c.History = 120
	}
	return c
}

// Source returns the server's rooms (server.Server.RoomViews).
type Source func() []server.RoomView

// Dashboard samples a server and serves what it sampled.
type Dashboard struct {
	cfg Config
	src Source

	mu    sync.Mutex
	rooms map[string]*roomState
	order []string          // room names of the last sample, sorted
	cache map[string][]byte // encoded answers of the last sample, by path
}

// roomState is what the dashboard keeps of one room between samples.
type roomState struct {
	view     server.RoomView
	bytes    uint64        // datagram bytes of its open connections at the last sample
	at       time.Duration // when
	rate     float64       // bytes per second between the last two samples
	sampled  bool          // bytes and at hold a sample
	players  map[int]*playerState
	seenNext bool
}

// playerState keeps one player's RTT history.
type playerState struct {
	rtt  room.Ring[RTTSample]
	seen bool
}

// New returns a dashboard of src.
func New(src Source, cfg Config) *Dashboard {
	return &Dashboard{cfg: cfg.withDefaults(), src: src, rooms: map[string]*roomState{}, cache: map[string][]byte{}}
}

// Run samples every Interval until ctx is done.
func (d *Dashboard) Run(ctx context.Context) {
	t := time.NewTicker(d.cfg.Interval)
	defer t.Stop()
	start := time.Now()
	d.Sample(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			d.Sample(time.Since(start))
		}
	}
}

// Sample reads the server once, at now (any clock that never goes
// back): rooms gone since the last sample are forgotten.
func (d *Dashboard) Sample(now time.Duration) {
	views := d.src()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.order = d.order[:0]
	for _, v := range views {
		rs := d.rooms[v.Name]
		if rs == nil {
			rs = &roomState{players: map[int]*playerState{}}
			d.rooms[v.Name] = rs
		}
		rs.seenNext = true
		d.order = append(d.order, v.Name)
		rs.update(now, v, d.cfg.History)
	}
	for name, rs := range d.rooms {
		if !rs.seenNext {
			delete(d.rooms, name)
		}
		rs.seenNext = false
	}
	clear(d.cache)
}

// update records v, sampled at now.
func (rs *roomState) update(now time.Duration, v server.RoomView, history int) {
	var bytes uint64
	for _, p := range rs.players {
		p.seen = false
	}
	for _, s := range v.Seats {
		bytes += s.Conn.BytesSent + s.Conn.BytesReceived
		if s.Spectator {
			continue
		}
		p := rs.players[s.Player]
		if p == nil {
			p = &playerState{rtt: room.NewRing[RTTSample](history)}
			rs.players[s.Player] = p
		}
		p.seen = true
		p.rtt.Push(RTTSample{AtMs: ms(now), RTTMs: ms(s.Conn.RTT), JitterMs: ms(s.Conn.RTTVar), LossPercent: s.Conn.LossPercent})
	}
	for id, p := range rs.players {
		if !p.seen {
			delete(rs.players, id)
		}
	}
	if dt := now - rs.at; rs.sampled && dt > 0 && bytes >= rs.bytes {
		rs.rate = float64(bytes-rs.bytes) / dt.Seconds()
	}
	rs.view, rs.bytes, rs.at, rs.sampled = v, bytes, now, true
}

// encoded returns the JSON of what build returns, encoded once per
// sample for key; build reports false for a room that does not exist
// (which is not cached, so the cache holds at most one answer per room
// and the list).
func (d *Dashboard) encoded(key string, build func() (any, bool)) ([]byte, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b, ok := d.cache[key]; ok {
		return b, true
	}
	v, ok := build()
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	b = append(b, '\n')
	d.cache[key] = b
	return b, true
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
