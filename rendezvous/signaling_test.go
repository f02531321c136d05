package rendezvous

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/netsim"
)

// TestDirectAndMemorySignaling: direct signaling routes to the address as
// it is (path direct, no probe sent); memory signaling hands a host's
// answer to one joiner, which then punches like any other, and refuses
// the code after.
func TestDirectAndMemorySignaling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := netsim.NewMemNetwork()
		hostPC, _ := n.ListenPacket("192.0.2.1:7000")
		joinPC, _ := n.ListenPacket("192.0.2.2:7000")
		hc, jc := NewConn(hostPC), NewConn(joinPC)
		defer hc.Close()
		defer jc.Close()
		host := netip.MustParseAddrPort("192.0.2.1:7000")
		r, err := Connect(context.Background(), jc, Direct{Addr: host, Room: "r", ServerKey: make([]byte, 32)}, PunchConfig{})
		if err != nil || r.Path != PathDirect || r.Addr.AddrPort() != host || r.Room != "r" || len(r.ServerKey) != 32 {
			t.Fatalf("direct: %+v, %v", r, err)
		}
		// Memory: the host's side answers probes as a Host would.
		var m Memory
		a := Answer{Room: "r", Host: host, Session: 9, Token: Token{7}}
		m.Offer("TICK-7K3M", a)
		hp := newPuncher(PunchConfig{}, kindProbe, roleHost, a.Session, a.Token, nil, time.Now())
		go func() {
			for {
				d, err := hc.readControl(context.Background())
				if err != nil {
					return
				}
				if pm, err := decode(d.b); err == nil {
					for _, o := range hp.handle(d.from, pm.(*probe), nil) {
						hc.send(o)
					}
				}
			}
		}()
		r, err = Connect(context.Background(), jc, m.Joiner("TICK-7K3M"), PunchConfig{})
		if err != nil || r.Path != PathPunched || r.Addr.AddrPort() != host {
			t.Fatalf("memory: %+v, %v", r, err)
		}
		if _, err := m.Joiner("TICK-7K3M").Signal(context.Background(), jc); !errors.Is(err, ErrRejected) {
			t.Fatalf("a memory code answered twice: %v", err)
		}
	})
}
