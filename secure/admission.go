package secure

import (
	"net/netip"
	"time"
)

// Limits are the connection limits. The zero value gives the defaults of
// the relay design (seed 001, "Relay connection limits").
type Limits struct {
	// MaxConnections caps connections (handshaking or established).
	// 0 means 1,000.
	MaxConnections int
	// MaxPerIP caps connections per address. 0 means 5.
	MaxPerIP int
	// NewPerSecond is the rate of new connections per address, a token
	// bucket holding Burst tokens. 0 means 10 per second.
	NewPerSecond int
	// Burst is the bucket size. 0 means NewPerSecond.
	Burst int
	// IdleUnauthenticated bounds the time from accepting a connection to
	// the end of its handshake. 0 means 60 s.
	IdleUnauthenticated time.Duration
	// IdleAuthenticated closes an established connection that received
	// nothing for this long. 0 means 5 min.
	IdleAuthenticated time.Duration
	// MaxTrackedIPs bounds the per-address table. 0 means twice
	// MaxConnections; it is never less than MaxConnections+1.
	MaxTrackedIPs int
	// ExemptLoopback lets loopback addresses skip MaxPerIP and
	// NewPerSecond (MaxConnections still applies): local bots, tests and
	// a co-located matchmaker all share one address.
	ExemptLoopback bool
}

// Resolved returns the limits with the defaults applied.
func (l Limits) Resolved() Limits { return l.withDefaults() }

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxConnections, 1000)
	def(&l.MaxPerIP, 5)
	def(&l.NewPerSecond, 10)
	def(&l.Burst, l.NewPerSecond)
	def(&l.MaxTrackedIPs, 2*l.MaxConnections)
	l.MaxTrackedIPs = max(l.MaxTrackedIPs, l.MaxConnections+1)
	if l.IdleUnauthenticated <= 0 {
		l.IdleUnauthenticated = 60 * time.Second
	}
	if l.IdleAuthenticated <= 0 {
		l.IdleAuthenticated = 5 * time.Minute
	}
	return l
}

// AdmissionStats counts admission decisions.
type AdmissionStats struct {
	Admitted     uint64 // connections admitted
	Released     uint64 // connections released
	RefusedFull  uint64 // refused: MaxConnections reached
	RefusedPerIP uint64 // refused: MaxPerIP reached
	RefusedRate  uint64 // refused: NewPerSecond exceeded
	Evicted      uint64 // per-address entries dropped to stay within MaxTrackedIPs
	Open         int    // connections admitted and not released
	TrackedIPs   int    // size of the per-address table
}

// ipState is one address's connection count and rate bucket. The bucket
// is kept as the time it is full again ("theoretical arrival time", GCRA):
// admitting costs one interval; admission needs full-burst·interval ≤ now.
type ipState struct {
	conns int
	full  time.Time
}

// Admission is the connection-limit policy as a pure value: it decides
// whether a validated address may open a connection. The zero value is
// ready to use with the default Limits. It is not safe for concurrent use.
//
// Per-address state is created only by Admit, which the server calls after
// the client has proven its address with a cookie; spoofed sources never
// reach it. The table is bounded by MaxTrackedIPs: entries without
// connections are dropped when their bucket is full again, or evicted
// oldest-bucket-first when the table is full. IPv6 addresses are grouped
// by /64 prefix, the unit a single host usually controls.
type Admission struct {
	Limits Limits

	lim   Limits // Limits with defaults, fixed at first use
	init  bool
	total int
	ips   map[netip.Addr]*ipState
	stats AdmissionStats
}

func (a *Admission) limits() *Limits {
	if !a.init {
		a.lim, a.init = a.Limits.withDefaults(), true
		a.ips = make(map[netip.Addr]*ipState)
	}
	return &a.lim
}

// ipKey is the address a limit applies to: the address itself, or its /64
// for IPv6.
func ipKey(ip netip.Addr) netip.Addr {
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.Addr()
	}
	return ip
}

// Full reports whether the server is at MaxConnections.
func (a *Admission) Full() bool { return a.total >= a.limits().MaxConnections }

// Admit admits a new connection from ip or returns why not: ErrServerFull,
// ErrTooManyFromIP or ErrRateLimited. Every refusal is counted. An
// admitted connection must be released with Release when it ends.
func (a *Admission) Admit(ip netip.Addr, now time.Time) error {
	l := a.limits()
	if a.total >= l.MaxConnections {
		a.stats.RefusedFull++
		return ErrServerFull
	}
	k := ipKey(ip)
	st := a.ips[k]
	if st == nil {
		a.makeRoom(now)
		st = &ipState{full: now}
		a.ips[k] = st
	}
	if !l.ExemptLoopback || !ip.Unmap().IsLoopback() {
		if st.conns >= l.MaxPerIP {
			a.stats.RefusedPerIP++
			return ErrTooManyFromIP
		}
		interval := time.Second / time.Duration(l.NewPerSecond)
		if st.full.Before(now) {
			st.full = now
		}
		if st.full.Sub(now) > time.Duration(l.Burst-1)*interval {
			a.stats.RefusedRate++
			return ErrRateLimited
		}
		st.full = st.full.Add(interval)
	}
	st.conns++
	a.total++
	a.stats.Admitted++
	return nil
}

// Release ends a connection admitted from ip.
func (a *Admission) Release(ip netip.Addr) {
	a.limits()
	st := a.ips[ipKey(ip)]
	if st == nil || st.conns == 0 {
		return
	}
	st.conns--
	a.total--
	a.stats.Released++
}

// makeRoom keeps the table below MaxTrackedIPs before an insertion: it
// drops entries without connections whose bucket is full again (they are
// indistinguishable from new ones), and if that is not enough evicts the
// connection-less entry whose bucket refills first. At least one such
// entry exists, since at most MaxConnections entries hold connections.
func (a *Admission) makeRoom(now time.Time) {
	if len(a.ips) < a.lim.MaxTrackedIPs {
		return
	}
	var oldest netip.Addr
	var oldestFull time.Time
	for k, st := range a.ips {
		switch {
		case st.conns > 0:
		case !st.full.After(now):
			delete(a.ips, k)
		case !oldest.IsValid() || st.full.Before(oldestFull):
			oldest, oldestFull = k, st.full
		}
	}
	if len(a.ips) >= a.lim.MaxTrackedIPs && oldest.IsValid() {
		delete(a.ips, oldest)
		a.stats.Evicted++
	}
}

// Stats returns the counters.
func (a *Admission) Stats() AdmissionStats {
	a.limits()
	s := a.stats
	s.Open, s.TrackedIPs = a.total, len(a.ips)
	return s
}
