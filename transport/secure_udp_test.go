package transport

import (
	"context"
	"math/rand/v2"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/tickwire/tickwire/secure"
)

// hello returns a well-formed secure Hello with a nonce from r.
func hello(r *rand.ChaCha8) []byte {
	b := make([]byte, secure.HelloSize)
	b[0], b[1] = 0xE1, secure.Version
	r.Read(b[2 : 2+secure.NonceSize])
	return b
}

// waitFor polls cond until it holds. It only waits for the server to
// catch up; the verdicts that follow are on counters, not on time.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// drain reads what the attacker socket received until want bytes arrived
// or the socket stays silent, and returns the byte count.
func drain(pc net.PacketConn, want uint64) uint64 {
	buf := make([]byte, 1<<16)
	var got uint64
	for {
		wait := 200 * time.Millisecond
		if got >= want {
			wait = 20 * time.Millisecond // anything beyond the server's own count?
		}
		pc.SetReadDeadline(time.Now().Add(wait))
		n, _, err := pc.ReadFrom(buf)
		if err != nil {
			return got
		}
		got += uint64(n)
	}
}

func TestSecureAmplificationThroughUDPDriver(t *testing.T) {
	scfg, _ := secureConfigs(10)
	l, err := ListenUDP(t.Context(), "127.0.0.1:0", scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := rand.NewChaCha8([32]byte{10})
	junk := func(n int) []byte {
		b := make([]byte, n)
		r.Read(b)
		return b
	}
	cases := []struct {
		name    string
		packets func(i int) []byte
	}{
		{"hellos", func(int) []byte { return hello(r) }},
		{"garbage", func(i int) []byte { return junk(1 + i%1400) }},
		{"truncated hellos", func(i int) []byte { return hello(r)[:1+i%(secure.HelloSize-1)] }},
		{"oversized hellos", func(i int) []byte { return append(hello(r), junk(1+i%100)...) }},
		{"initiates with forged cookies", func(int) []byte {
			b := junk(secure.InitiateSize)
			b[0], b[1], b[secure.InitiateSize-secure.TokenSize-1] = 0xE3, secure.Version, 0
			return b
		}},
		{"finishes from nowhere", func(int) []byte {
			b := junk(secure.FinishSize)
			b[0], b[1] = 0xE5, secure.Version
			return b
		}},
		{"plaintext transport hellos", func(int) []byte { return appendHeader(nil, header{connID: 7, seq: 1}) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			atk, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer atk.Close()
			before := l.Stats().Handshake
			var sent, got, out uint64
			for i := range 300 {
				p := tc.packets(i)
				if _, err := atk.WriteTo(p, l.Addr()); err != nil {
					t.Fatal(err)
				}
				sent += uint64(len(p))
				if i%50 == 49 { // stay within the socket buffers
					waitFor(t, "server to read", func() bool { return l.Stats().Handshake.UnvalidatedIn-before.UnvalidatedIn == sent })
					out = l.Stats().Handshake.UnvalidatedOut - before.UnvalidatedOut
					got += drain(atk, out-got)
				}
			}
			if got != out {
				t.Fatalf("attacker received %d bytes, server counted %d", got, out)
			}
			if got > sent {
				t.Fatalf("amplification: %d bytes out for %d in", got, sent)
			}
			t.Logf("%s: %d bytes in, %d out, ratio %.3f", tc.name, sent, got, float64(got)/float64(sent))
			if st := l.Stats(); st.Pending != 0 || st.Connections != 0 || st.Handshake.Admission.TrackedIPs != 0 {
				t.Fatalf("per-source state from unvalidated packets: %+v", st)
			}
		})
	}
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func TestSecureSpoofedHelloFloodLeavesServerFlat(t *testing.T) {
	const sources, perSource = 100, 1000 // 100,000 hellos
	scfg, ccfg := secureConfigs(11)
	scfg.HandshakeTimeout, ccfg.HandshakeTimeout = 30*time.Second, 30*time.Second
	l, err := ListenUDP(t.Context(), "127.0.0.1:0", scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	base := heapInUse()

	atks := make([]net.PacketConn, sources)
	for i := range atks {
		if atks[i], err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		defer atks[i].Close()
	}
	// Rounds of one hello per source, each waiting until the server read
	// the previous one, so the socket buffers never overflow and every
	// hello reaches the server.
	var flood sync.WaitGroup
	flood.Go(func() {
		r := rand.NewChaCha8([32]byte{11})
		for round := range perSource {
			for _, atk := range atks {
				if _, err := atk.WriteTo(hello(r), l.Addr()); err != nil {
					t.Error(err)
					return
				}
			}
			want := uint64((round + 1) * sources)
			waitFor(t, "server to read", func() bool { return l.Stats().Handshake.Hellos >= want })
		}
	})
	// A real client connects and talks during the flood.
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	accepted := make(chan *Conn, 1)
	go func() {
		sc, err := l.Accept(ctx)
		if err != nil {
			t.Error(err)
		}
		accepted <- sc
	}()
	cc, err := DialUDP(ctx, l.Addr().String(), ccfg)
	if err != nil {
		t.Fatal(err)
	}
	sc := <-accepted
	if sc == nil {
		t.FailNow()
	}
	exchange(t, cc, sc, 20)
	exchange(t, sc, cc, 20)
	flood.Wait()
	cc.Close()
	waitFor(t, "the connection to end", func() bool { return l.Stats().Connections == 0 })

	st := l.Stats()
	t.Logf("%d hellos answered, %d B in, %d B out", st.Handshake.Hellos, st.Handshake.UnvalidatedIn, st.Handshake.UnvalidatedOut)
	if st.Handshake.Hellos < sources*perSource {
		t.Fatalf("only %d hellos reached the server", st.Handshake.Hellos)
	}
	if st.Handshake.UnvalidatedOut > st.Handshake.UnvalidatedIn {
		t.Fatalf("amplification %d > %d", st.Handshake.UnvalidatedOut, st.Handshake.UnvalidatedIn)
	}
	if st.Pending != 0 || st.Handshake.Accepted != 1 || st.Handshake.Admission.TrackedIPs > 1 {
		t.Fatalf("per-source state after the flood: %+v", st)
	}
	grew := int64(heapInUse()) - int64(base)
	t.Logf("server heap grew %d bytes", grew)
	if grew > 1<<20 {
		t.Fatalf("heap grew %d bytes over a flood of spoofed hellos", grew)
	}
}
