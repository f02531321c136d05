package roomtest

import (
	"context"
	"testing"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// Silent is a server that seats its first client and then falls silent:
// it answers the client's JoinRoom with accept, sends the model's first
// messages (start, on the orders lane, in order) and nothing more, while
// its transport keeps the connection up (it answers keep-alives). It is
// a server that dropped the MatchEnd and forgot the seat without closing
// it: a client that waits for the end of its match must still end, on
// its idle timeout. Run it inside testing/synctest; the returned dial
// opens the client's connection (lanes.TransportConfig).
func Silent(t *testing.T, accept join.JoinAccepted, start ...[]byte) func(ctx context.Context) (*transport.Conn, error) {
	t.Helper()
	mn := netsim.NewMemNetwork()
	pc, err := mn.ListenPacket("")
	if err != nil {
		t.Fatal(err)
	}
	tc := lanes.TransportConfig()
	l, err := transport.Listen(t.Context(), pc, tc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		conn, err := l.Accept(ctx)
		if err != nil {
			return
		}
		defer conn.Close()
		if _, err := conn.Receive(ctx); err != nil { // the JoinRoom
			return
		}
		b, err := accept.Append(nil)
		if err != nil {
			t.Error(err)
			return
		}
		for _, m := range append([][]byte{b}, start...) {
			if err := conn.Send(lanes.Orders, m); err != nil {
				t.Error(err)
				return
			}
		}
		conn.Flush()
		for { // read, and say nothing, until the client or the test ends
			if _, err := conn.Receive(ctx); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-served
		l.Close()
	})
	return func(ctx context.Context) (*transport.Conn, error) {
		c, err := mn.ListenPacket("")
		if err != nil {
			return nil, err
		}
		return transport.Dial(ctx, c, l.Addr(), tc)
	}
}
