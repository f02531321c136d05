package rendezvous

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/netsim"
)

// TestExpiredBindingRenewed: the host's NAT forgets its mapping while the
// host waits (keepalives rarer than the binding timeout); the next
// keepalive leaves from a new public port, the rendezvous moves the code
// there, the host learns it, and a joiner still punches through, to the
// new port. With keepalives inside the timeout the endpoint never moves.
func TestExpiredBindingRenewed(t *testing.T) {
	for _, tc := range []struct {
		keepalive time.Duration
		rebinds   int
	}{{20 * time.Second, 1}, {2 * time.Second, 0}} {
		synctest.Test(t, func(t *testing.T) {
			w := newWorld(t, netsim.NATConfig{BindingTimeout: 5 * time.Second}, netsim.NATConfig{})
			h, hc := w.host(HostConfig{Keepalive: tc.keepalive})
			first := h.Observed()
			time.Sleep(30 * time.Second)
			synctest.Wait()
			if got := h.Rebinds(); got != tc.rebinds {
				t.Fatalf("keepalive %v: %d rebinds, want %d", tc.keepalive, got, tc.rebinds)
			}
			if moved := h.Observed() != first; moved != (tc.rebinds > 0) {
				t.Fatalf("keepalive %v: endpoint %v then %v", tc.keepalive, first, h.Observed())
			}
			r, _, jc, err := w.join(h.Code())
			if err != nil || r.Path != PathPunched || r.Addr.AddrPort() != h.Observed() {
				t.Fatalf("joined %+v, %v; want punched to %v", r, err, h.Observed())
			}
			exchange(t, r, jc, hc)
		})
	}
}

// TestHijackByThirdAddressFails: an attacker on the public network that
// knows the code, every address and even the session id — everything but
// the token the rendezvous gave the two ends — floods the host and the
// joiner with forged probes and the relay with forged binds, and tries
// the code itself. The joiner still reaches the host, the host never
// takes the attacker for a joiner, and the code is refused to it.
func TestHijackByThirdAddressFails(t *testing.T) {
	for _, kind := range []netsim.NATKind{netsim.FullCone, netsim.Symmetric} {
		synctest.Test(t, func(t *testing.T) {
			cfg := netsim.NATConfig{Kind: kind, Delay: 5 * time.Millisecond}
			w := newWorld(t, cfg, cfg)
			h, hc := w.host(HostConfig{})
			apc, err := w.net.ListenPacket("198.51.100.66:666")
			if err != nil {
				t.Fatal(err)
			}
			attacker := NewConn(apc)
			defer attacker.Close()
			ctx, stop := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() { forge(ctx, w, h.Code(), attacker) })
			t.Cleanup(func() { stop(); wg.Wait() }) // a failure ends the attacker too
			r, _, jc, err := w.join(h.Code())
			if err != nil {
				t.Fatal(err)
			}
			if r.Path != expectedPath(kind, kind) {
				t.Fatalf("path %s under attack, want %s", r.Path, expectedPath(kind, kind))
			}
			if r.Addr.AddrPort().Addr() == apc.LocalAddr().(*net.UDPAddr).AddrPort().Addr() {
				t.Fatalf("the joiner was sent to the attacker")
			}
			from := exchange(t, r, jc, hc)
			stop()
			wg.Wait()
			synctest.Wait()
			if h.PathOf(from) != r.Path || h.PathOf(apc.LocalAddr()) != PathDirect {
				t.Fatalf("host: joiner %s, attacker %s", h.PathOf(from), h.PathOf(apc.LocalAddr()))
			}
			_, err = Rendezvous{Server: w.rv, Code: h.Code()}.Signal(context.Background(), attacker)
			if !errors.Is(err, ErrRejected) || err.(*RejectError).Reason != ReasonCodeUsed {
				t.Fatalf("the attacker resolved the used code: %v", err)
			}
		})
	}
}

// forge sends forged probes and binds for every session of code every
// millisecond until ctx ends, with a fresh guess of the token each time.
func forge(ctx context.Context, w *world, code string, c *Conn) {
	var nonce uint64
	for ctx.Err() == nil {
		w.service.mu.Lock()
		e := w.service.srv.codes[code]
		var targets []netip.AddrPort
		var sessions []session
		if e != nil {
			targets = append(targets, e.host)
			sessions = append(sessions, e.sessions...)
		}
		w.service.mu.Unlock()
		for _, s := range sessions {
			for _, role := range []uint8{roleHost, roleJoiner} {
				for _, kind := range []uint8{kindProbe, kindBind} {
					for _, ack := range []bool{false, true} {
						nonce++
						var guess Token
						guess[0], guess[1] = byte(nonce), byte(nonce>>8)
						m := probe{Kind: kind, Session: s.id, Role: role, Ack: ack, Nonce: nonce}
						m.sign(guess)
						for _, to := range append(targets, s.joiner, s.relay) {
							c.send(Datagram{To: to, Data: m.append(nil)})
						}
					}
				}
			}
		}
		time.Sleep(time.Millisecond)
	}
}
