package netsim

import (
	"context"
	"log/slog"
	"math/bits"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of ProxyConfig.
const (
	DefaultMaxClients  = 1024
	DefaultIdleTimeout = 2 * time.Minute
)

// ProxyConfig configures a Proxy. The zero value relays without
// impairment.
type ProxyConfig struct {
	// Seed seeds the impairment; the n-th client (counting from 0) gets
	// Config.Seed = Seed + n, so runs with the same arrivals repeat.
	Seed uint64
	// Up impairs client→upstream packets, Down upstream→client packets.
	// Every client has its own pair of links (own queues, own burst state).
	Up, Down Link
	// MaxClients caps the client mappings; packets from further clients
	// are dropped. Zero means DefaultMaxClients.
	MaxClients int
	// IdleTimeout removes a mapping that carried no packet for this long.
	// Zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// ListenUpstream opens the socket of a new client mapping. Nil means a
	// UDP socket on an ephemeral port of all interfaces.
	ListenUpstream func() (net.PacketConn, error)
	// Logger receives mapping events; nil discards them.
	Logger *slog.Logger
}

// ProxyStats counts a Proxy's work.
type ProxyStats struct {
	Clients  int    // current mappings
	Opened   uint64 // mappings opened so far
	Rejected uint64 // packets from new clients dropped at MaxClients
	// Up and Down sum the links of all mappings, current and removed.
	Up, Down LinkStats
}

// Proxy relays UDP datagrams between clients and one upstream server
// through impaired links. Clients send to the proxy's connection; for
// each client address the proxy opens its own upstream socket, so the
// server sees one distinct source per client, and relays the server's
// replies on that socket back to the client.
//
//	client ──► conn ──► [Up link] ──► upstream socket ──► server
//	client ◄── conn ◄── [Down link] ◄── upstream socket ◄── server
//
// The Up link is the Out direction and the Down link the In direction of
// the per-client upstream socket, wrapped by Wrap.
type Proxy struct {
	conn     net.PacketConn
	upstream net.Addr
	upKey    string
	cfg      ProxyConfig
	log      *slog.Logger

	mu      sync.Mutex
	clients map[string]*proxyClient
	stats   ProxyStats // Opened, Rejected, and the links of removed clients
	wg      sync.WaitGroup
}

type proxyClient struct {
	addr     net.Addr
	up       *PacketConn
	lastSeen atomic.Int64 // unix nanoseconds
}

func (c *proxyClient) touch(now time.Time) { c.lastSeen.Store(now.UnixNano()) }

// NewProxy returns a proxy serving clients on conn and relaying to
// upstream. The caller keeps ownership of conn.
func NewProxy(conn net.PacketConn, upstream net.Addr, cfg ProxyConfig) *Proxy {
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = DefaultMaxClients
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.ListenUpstream == nil {
		cfg.ListenUpstream = func() (net.PacketConn, error) { return net.ListenPacket("udp", ":0") }
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Proxy{
		conn: conn, upstream: upstream, upKey: upstream.String(), cfg: cfg, log: log,
		clients: make(map[string]*proxyClient),
	}
}

// Serve relays until ctx is done (returning nil) or reading conn fails.
// On return every mapping is closed. Serve must be called at most once.
func (p *Proxy) Serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { p.conn.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()

	p.wg.Add(1)
	go p.expireLoop(ctx)
	defer func() {
		cancel()
		p.closeAll()
		p.wg.Wait()
	}()

	buf := make([]byte, 64<<10)
	for {
		n, from, err := p.conn.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		c := p.client(from)
		if c == nil {
			continue
		}
		c.touch(time.Now())
		c.up.WriteTo(buf[:n], p.upstream) // never fails while c is open
	}
}

// client returns the mapping of addr, opening it if needed; nil when the
// packet must be dropped.
func (p *Proxy) client(addr net.Addr) *proxyClient {
	key := addr.String()
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.clients[key]; c != nil {
		return c
	}
	if len(p.clients) >= p.cfg.MaxClients {
		p.stats.Rejected++
		if bits.OnesCount64(p.stats.Rejected) == 1 { // log 1st, 2nd, 4th, 8th...
			p.log.Warn("netsim proxy: client limit reached, dropping", "client", key,
				"max_clients", p.cfg.MaxClients, "rejected", p.stats.Rejected)
		}
		return nil
	}
	pc, err := p.cfg.ListenUpstream()
	if err != nil {
		p.log.Error("netsim proxy: open upstream socket", "client", key, "err", err)
		return nil
	}
	c := &proxyClient{addr: addr, up: Wrap(pc, Config{
		Seed: p.cfg.Seed + p.stats.Opened, Out: p.cfg.Up, In: p.cfg.Down,
	})}
	p.stats.Opened++
	p.clients[key] = c
	p.log.Info("netsim proxy: new client", "client", key, "via", pc.LocalAddr().String(),
		"clients", len(p.clients))
	p.wg.Add(1)
	go p.relayDown(c)
	return c
}

// relayDown forwards the upstream's packets to the client until the
// mapping is closed. Packets from other sources are ignored.
func (p *Proxy) relayDown(c *proxyClient) {
	defer p.wg.Done()
	buf := make([]byte, 64<<10)
	for {
		n, from, err := c.up.ReadFrom(buf)
		if err != nil {
			return
		}
		if from.String() != p.upKey {
			continue
		}
		c.touch(time.Now())
		if _, err := p.conn.WriteTo(buf[:n], c.addr); err != nil {
			p.log.Debug("netsim proxy: write to client", "client", c.addr.String(), "err", err)
		}
	}
}

// expireLoop removes idle mappings until ctx is done.
func (p *Proxy) expireLoop(ctx context.Context) {
	defer p.wg.Done()
	tick := time.NewTicker(max(p.cfg.IdleTimeout/4, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			p.expire(now.Add(-p.cfg.IdleTimeout))
		}
	}
}

// expire closes the mappings idle since before cutoff.
func (p *Proxy) expire(cutoff time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, c := range p.clients {
		if c.lastSeen.Load() < cutoff.UnixNano() {
			p.remove(key, c)
			p.log.Info("netsim proxy: client idle, mapping closed", "client", key,
				"clients", len(p.clients))
		}
	}
}

func (p *Proxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, c := range p.clients {
		p.remove(key, c)
	}
}

// remove closes a mapping and keeps its counters; p.mu must be held.
func (p *Proxy) remove(key string, c *proxyClient) {
	delete(p.clients, key)
	c.up.Close()
	st := c.up.Stats()
	p.stats.Up = p.stats.Up.Add(st.Out)
	p.stats.Down = p.stats.Down.Add(st.In)
}

// Stats returns the proxy's counters.
func (p *Proxy) Stats() ProxyStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.stats
	st.Clients = len(p.clients)
	for _, c := range p.clients {
		cs := c.up.Stats()
		st.Up = st.Up.Add(cs.Out)
		st.Down = st.Down.Add(cs.In)
	}
	return st
}
