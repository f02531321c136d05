package netsim

import (
	"net/netip"
	"sync"
	"time"
)

// NATKind is how a simulated NAT maps and filters (RFC 4787's terms).
type NATKind uint8

const (
	// PortRestrictedCone maps each private endpoint to one public port
	// whatever the destination (endpoint-independent mapping) and lets in
	// only packets from an address and port the private endpoint has sent
	// to (address-and-port-dependent filtering): a common home router,
	// and Linux masquerade.
	PortRestrictedCone NATKind = iota
	// FullCone maps as PortRestrictedCone does and lets in packets from
	// anyone to a mapped port (endpoint-independent filtering).
	FullCone
	// Symmetric gives each (private endpoint, destination) pair a public
	// port of its own and lets in only replies from that destination:
	// Linux masquerade with "random", carrier-grade NATs.
	Symmetric
)

func (k NATKind) String() string {
	switch k {
	case PortRestrictedCone:
		return "port-restricted cone"
	case FullCone:
		return "full cone"
	case Symmetric:
		return "symmetric"
	}
	return "unknown"
}

// DefaultBindingTimeout is how long a NAT mapping lives without outgoing
// traffic when NATConfig says nothing: 30 s, RFC 4787's floor for UDP and
// what many home routers use.
const DefaultBindingTimeout = 30 * time.Second

// NATConfig configures a simulated NAT. The zero value is a
// port-restricted cone with 30 s bindings and no delay.
type NATConfig struct {
	Kind NATKind
	// BindingTimeout is how long a mapping lives after its last outgoing
	// packet (incoming packets do not refresh it); 0 means
	// DefaultBindingTimeout. An expired mapping is forgotten and the next
	// outgoing packet gets a new public port: the NAT rebinds.
	BindingTimeout time.Duration
	// Delay is the one-way delay between the NAT and the rest of the
	// network, in both directions.
	Delay time.Duration
}

// NAT is a simulated NAT in a MemNetwork: endpoints created with
// ListenPacket have private addresses; their packets leave from the NAT's
// public address with a mapped port and the NAT decides which packets
// from outside reach them. A packet sent with a TTL of 2 or less (see
// MemConn.SetTTL) opens its mapping and then dies one hop past the NAT,
// as a TTL-limited packet does past a home router.
type NAT struct {
	network *MemNetwork
	public  netip.Addr
	cfg     NATConfig

	mu       sync.Mutex
	nextPort uint16
	byKey    map[natKey]*binding
	byPort   map[uint16]*binding
}

// natKey names a mapping: the private endpoint, and for a symmetric NAT
// the destination too.
type natKey struct{ private, remote netip.AddrPort }

type binding struct {
	key     natKey
	port    uint16
	last    time.Time
	allowed map[netip.AddrPort]bool // destinations sent to (port-restricted filtering)
}

// lowTTL is the largest TTL that dies past the NAT.
const lowTTL = 2

// AddNAT puts a NAT with the public address public on the network.
func (n *MemNetwork) AddNAT(public netip.Addr, cfg NATConfig) *NAT {
	if cfg.BindingTimeout == 0 {
		cfg.BindingTimeout = DefaultBindingTimeout
	}
	t := &NAT{network: n, public: public, cfg: cfg, nextPort: 40000,
		byKey: make(map[natKey]*binding), byPort: make(map[uint16]*binding)}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.nats == nil {
		n.nats = make(map[netip.Addr]*NAT)
	}
	n.nats[public] = t
	return t
}

// Public is the NAT's public address.
func (t *NAT) Public() netip.Addr { return t.public }

// ListenPacket creates an endpoint behind the NAT at the private address
// addr ("ip:port", port 0 for a free one).
func (t *NAT) ListenPacket(addr string) (*MemConn, error) {
	c, err := t.network.ListenPacket(addr)
	if err != nil {
		return nil, err
	}
	c.nat = t
	return c, nil
}

// Bindings is the number of live mappings.
func (t *NAT) Bindings() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.expire(time.Now())
	return len(t.byKey)
}

// outbound maps a packet from private to dst at now and returns the
// public source it leaves with.
func (t *NAT) outbound(now time.Time, private, dst netip.AddrPort) netip.AddrPort {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.expire(now)
	k := natKey{private: private}
	if t.cfg.Kind == Symmetric {
		k.remote = dst
	}
	b := t.byKey[k]
	if b == nil {
		b = &binding{key: k, port: t.freePort(), allowed: make(map[netip.AddrPort]bool)}
		t.byKey[k] = b
		t.byPort[b.port] = b
	}
	b.last = now
	if len(b.allowed) < MemQueue { // bounded: a private endpoint spraying addresses
		b.allowed[dst] = true
	}
	return netip.AddrPortFrom(t.public, b.port)
}

// inbound decides whether a packet from src to the public port reaches a
// private endpoint, and which.
func (t *NAT) inbound(now time.Time, src netip.AddrPort, port uint16) (netip.AddrPort, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.expire(now)
	b := t.byPort[port]
	if b == nil {
		return netip.AddrPort{}, false
	}
	switch t.cfg.Kind {
	case PortRestrictedCone:
		if !b.allowed[src] {
			return netip.AddrPort{}, false
		}
	case Symmetric:
		if b.key.remote != src {
			return netip.AddrPort{}, false
		}
	}
	return b.key.private, true
}

func (t *NAT) expire(now time.Time) {
	for k, b := range t.byKey {
		if now.Sub(b.last) >= t.cfg.BindingTimeout {
			delete(t.byKey, k)
			delete(t.byPort, b.port)
		}
	}
}

// freePort is the next public port no mapping holds; ports are not reused
// at once, so a renewed mapping is visibly a new one.
func (t *NAT) freePort() uint16 {
	for {
		p := t.nextPort
		t.nextPort++
		if t.nextPort < 40000 {
			t.nextPort = 40000
		}
		if t.byPort[p] == nil {
			return p
		}
	}
}
