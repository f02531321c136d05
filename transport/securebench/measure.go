package securebench

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tickwire/tickwire/secure"
	"github.com/tickwire/tickwire/transport"
	"github.com/tickwire/tickwire/transport/transportbench"
)

// Result are the security figures.
type Result struct {
	// HandshakesPerSecond is sequential encrypted Dials on loopback UDP
	// per second of Dial time: Hello to established Conn, including the
	// plaintext channel check that runs inside the encrypted channel.
	HandshakesPerSecond float64 `json:"handshakes_per_s"`
	// SealNs and OpenNs are the AES-256-GCM cost of sealing and of opening
	// one 1,200-byte datagram (header authenticated, payload encrypted).
	SealNs float64 `json:"seal_ns_per_1200B"`
	OpenNs float64 `json:"open_ns_per_1200B"`
	// W1Plain and W1Secure are the same W1 run without and with Security;
	// W1CPUOverheadPercent is how much more CPU per delivered message the
	// encrypted run took (the target: at most 15%).
	// Each is the median, by CPU per message, of three alternating runs.
	W1Plain              W1Result `json:"w1_plain"`
	W1Secure             W1Result `json:"w1_secure"`
	W1CPUOverheadPercent float64  `json:"w1_cpu_overhead_pct"`
	// W1AEADPercent is the same overhead computed without timing noise:
	// the datagrams per message (both directions) times the seal and open
	// cost of a full 1,200-byte datagram (W1's are smaller, so this is an
	// upper bound), over the plaintext run's CPU per message.
	W1AEADPercent float64 `json:"w1_aead_pct"`
}

// W1Result is one W1 run.
type W1Result struct {
	Conns       int     `json:"conns"`
	Seconds     float64 `json:"seconds"` // sending phase
	Delivered   int     `json:"delivered"`
	CPUSeconds  float64 `json:"cpu_s"` // process CPU over sending and drain
	CPUPerMsgUs float64 `json:"cpu_us_per_msg"`
	// DatagramsPerMsg counts datagrams in both directions per delivered
	// message.
	DatagramsPerMsg float64 `json:"datagrams_per_msg"`
}

// Measure takes the figures within about d (a few seconds give stable
// W1 figures).
func Measure(ctx context.Context, d time.Duration) (*Result, error) {
	var r Result
	var err error
	if r.HandshakesPerSecond, err = Handshakes(ctx, 200, d/8); err != nil {
		return nil, fmt.Errorf("handshakes: %w", err)
	}
	if r.SealNs, r.OpenNs, err = AEAD(2_000); err != nil {
		return nil, fmt.Errorf("aead: %w", err)
	}
	const rounds = 3
	w1 := max(d*3/8/rounds, 100*time.Millisecond)
	var runs [2][]W1Result
	for i := range 2 * rounds {
		encrypted := i%2 == 1
		w, err := W1(ctx, encrypted, w1)
		if err != nil {
			return nil, fmt.Errorf("W1 (encrypted %t): %w", encrypted, err)
		}
		runs[i%2] = append(runs[i%2], w)
	}
	r.W1Plain, r.W1Secure = median(runs[0]), median(runs[1])
	if p := r.W1Plain.CPUPerMsgUs; p > 0 {
		r.W1CPUOverheadPercent = 100 * (r.W1Secure.CPUPerMsgUs/p - 1)
		r.W1AEADPercent = 100 * r.W1Secure.DatagramsPerMsg * (r.SealNs + r.OpenNs) / 1000 / p
	}
	return &r, nil
}

// median returns the run with the median CPU per message.
func median(rs []W1Result) W1Result {
	slices.SortFunc(rs, func(a, b W1Result) int { return cmp.Compare(a.CPUPerMsgUs, b.CPUPerMsgUs) })
	return rs[len(rs)/2]
}

// configs returns a server and a client configuration with one
// reliable-ordered channel, encrypted or not. The server's limits allow
// any number of loopback clients.
func configs(encrypted bool) (server, client transport.Config, err error) {
	chans := []transport.ChannelConfig{{ID: 1, Name: "w1", Reliability: transport.ReliableOrdered}}
	server = transport.Config{Channels: chans}
	client = server
	if !encrypted {
		return server, client, nil
	}
	pub, id, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return server, client, err
	}
	server.Security = &transport.SecurityConfig{Identity: id,
		Limits: secure.Limits{MaxPerIP: 1 << 20, NewPerSecond: 1 << 20, MaxConnections: 1 << 20}}
	client.Security = &transport.SecurityConfig{ServerKey: pub}
	return server, client, nil
}

// serve accepts connections until l closes, closing each at once, or
// handing it to use.
func serve(ctx context.Context, l *transport.Listener, use func(*transport.Conn)) {
	for {
		c, err := l.Accept(ctx)
		if err != nil {
			return
		}
		go use(c)
	}
}

// Handshakes dials an encrypted loopback listener up to n times or for d,
// one Dial after another, and returns handshakes per second of Dial time.
func Handshakes(ctx context.Context, n int, d time.Duration) (float64, error) {
	scfg, ccfg, err := configs(true)
	if err != nil {
		return 0, err
	}
	l, err := transport.ListenUDP(ctx, "127.0.0.1:0", scfg)
	if err != nil {
		return 0, err
	}
	defer l.Close()
	go serve(ctx, l, func(c *transport.Conn) { _, _ = c.Receive(ctx) })
	var dialing time.Duration
	start, done := time.Now(), 0
	for done < n && (done == 0 || time.Since(start) < d) {
		t0 := time.Now()
		c, err := transport.DialUDP(ctx, l.Addr().String(), ccfg)
		if err != nil {
			return 0, err
		}
		dialing += time.Since(t0)
		done++
		c.Close()
	}
	return float64(done) / dialing.Seconds(), nil
}

// AEAD seals and opens 1,200-byte datagrams in rounds of n and returns the
// nanoseconds per seal and per open of the fastest round (the machine's
// other load, and the collector, only ever add).
func AEAD(n int) (sealNs, openNs float64, err error) {
	client, server, err := sessions()
	if err != nil {
		return 0, 0, err
	}
	header := make([]byte, 24)
	payload := make([]byte, 1200-len(header)-secure.Overhead)
	buf := make([]byte, 0, 1200)
	arena := make([]byte, n*1200)
	wire := make([][]byte, n)
	seq := uint32(0)
	const rounds = 10
	sealNs, openNs = math.Inf(1), math.Inf(1)
	for range rounds {
		runtime.GC()
		t0 := time.Now()
		for range n {
			seq++
			if _, err := client.Seal(buf, seq, header, payload); err != nil {
				return 0, 0, err
			}
		}
		sealNs = min(sealNs, float64(time.Since(t0).Nanoseconds())/float64(n))
		first := seq + 1
		for i := range wire {
			seq++
			if wire[i], err = client.Seal(arena[i*1200:i*1200:(i+1)*1200], seq, header, payload); err != nil {
				return 0, 0, err
			}
		}
		runtime.GC()
		t1 := time.Now()
		for i, w := range wire {
			if _, err := server.Open(buf, first+uint32(i), header, w, t1); err != nil {
				return 0, 0, err
			}
		}
		openNs = min(openNs, float64(time.Since(t1).Nanoseconds())/float64(n))
	}
	return sealNs, openNs, nil
}

// sessions runs a handshake in memory and returns the client's packet
// protection and the server's established connection.
func sessions() (*secure.Session, secure.Authenticated, error) {
	var none secure.Authenticated
	_, sid, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, none, err
	}
	_, cid, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, none, err
	}
	srv, err := secure.NewServer(secure.ServerConfig{Identity: sid}, rand.Reader)
	if err != nil {
		return nil, none, err
	}
	hs, err := secure.NewClientHandshake(secure.ClientConfig{Identity: cid}, rand.Reader)
	if err != nil {
		return nil, none, err
	}
	now := time.Now()
	from := netip.MustParseAddrPort("127.0.0.1:4000")
	challenge, _ := srv.HandleUnvalidated(hs.Packet(), from, now)
	initiate, err := hs.Handle(challenge)
	if err != nil {
		return nil, none, err
	}
	u, serverHello, err := srv.Accept(initiate, from, now)
	if err != nil {
		return nil, none, err
	}
	finish, err := hs.Handle(serverHello)
	if err != nil {
		return nil, none, err
	}
	auth, err := u.Finish(finish, now)
	return hs.Session(), auth, err
}

// W1 runs workload W1 on loopback UDP for d: 10 connections each sending
// 64-byte messages on a reliable-ordered channel at 1,000 per second, and
// returns the process CPU per delivered message.
func W1(ctx context.Context, encrypted bool, d time.Duration) (W1Result, error) {
	const conns, rate, size = 10, 1000, 64
	res := W1Result{Conns: conns, Seconds: d.Seconds()}
	scfg, ccfg, err := configs(encrypted)
	if err != nil {
		return res, err
	}
	l, err := transport.ListenUDP(ctx, "127.0.0.1:0", scfg)
	if err != nil {
		return res, err
	}
	defer l.Close()
	var delivered atomic.Int64
	go serve(ctx, l, func(c *transport.Conn) {
		for {
			if _, err := c.Receive(ctx); err != nil {
				return
			}
			delivered.Add(1)
		}
	})
	clients := make([]*transport.Conn, conns)
	for i := range clients {
		if clients[i], err = transport.DialUDP(ctx, l.Addr().String(), ccfg); err != nil {
			return res, err
		}
		defer clients[i].Close()
	}
	msg := make([]byte, size)
	var sent atomic.Int64
	cpu0 := transportbench.CPUTime()
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	stop := time.Now().Add(d)
	for _, c := range clients {
		wg.Go(func() {
			// One message per tick; a late tick is skipped, not made up
			// with a burst, so every run sends message by message.
			tick := time.NewTicker(time.Second / rate)
			defer tick.Stop()
			for now := range tick.C {
				if now.After(stop) {
					return
				}
				for {
					err := c.Send(1, msg)
					if err == nil {
						break
					}
					if !errors.Is(err, transport.ErrBackpressure) {
						errs <- err
						return
					}
					time.Sleep(time.Millisecond)
				}
				sent.Add(1)
			}
		})
	}
	wg.Wait()
	select {
	case err := <-errs:
		return res, err
	default:
	}
	total := sent.Load()
	deadline := time.Now().Add(10 * time.Second)
	for delivered.Load() < total && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	cpu := transportbench.CPUTime() - cpu0
	res.Delivered = int(delivered.Load())
	var datagrams uint64
	for _, c := range clients {
		st := c.Stats()
		datagrams += st.PacketsSent + st.PacketsReceived
	}
	res.DatagramsPerMsg = float64(datagrams) / float64(max(res.Delivered, 1))
	res.CPUSeconds = cpu.Seconds()
	if int64(res.Delivered) < total {
		return res, fmt.Errorf("%d of %d messages delivered", res.Delivered, total)
	}
	res.CPUPerMsgUs = float64(cpu.Microseconds()) / float64(res.Delivered)
	return res, nil
}
