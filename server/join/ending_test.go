package join_test

import (
	"bytes"
	"context"
	"testing"
	"testing/synctest"

	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// leaveAgainst runs Ending.Leave against a server that waits for the
// Leave, then sends a model's message and, if cert is not nil, a
// MatchResult, and closes. It reports what Leave returned and whether
// the server read a Leave.
func leaveAgainst(t *testing.T, cert []byte) ([]byte, error, bool) {
	t.Helper()
	var (
		got  []byte
		err  error
		left bool
	)
	synctest.Test(t, func(t *testing.T) {
		mn := netsim.NewMemNetwork()
		tc := lanes.TransportConfig()
		spc, _ := mn.ListenPacket("")
		l, e := transport.Listen(t.Context(), spc, tc)
		if e != nil {
			t.Fatal(e)
		}
		defer l.Close()
		go func() {
			c, err := l.Accept(context.Background())
			if err != nil {
				return
			}
			tm, err := c.Receive(context.Background())
			if err != nil {
				return
			}
			m, _ := join.Parse(tm.Data)
			_, left = m.(*join.Leave)
			c.Send(lanes.Orders, []byte{0x20, 1, 2, 3}) // the model's last word
			if cert != nil {
				b, _ := (&join.MatchResult{Certificate: cert}).Append(nil)
				c.Send(lanes.Orders, b)
			}
			c.CloseWithReason("game over")
		}()
		cpc, _ := mn.ListenPacket("")
		conn, e := transport.Dial(t.Context(), cpc, l.Addr(), tc)
		if e != nil {
			t.Fatal(e)
		}
		defer conn.Close()
		var end join.Ending
		got, err = end.Leave(t.Context(), conn)
		if !bytes.Equal(end.Certificate(), got) {
			t.Errorf("kept %q, returned %q", end.Certificate(), got)
		}
		synctest.Wait()
	})
	return got, err, left
}

// TestEndingLeave: a player that leaves gets the certificate the server
// sends before closing, past the model's messages; without one it learns
// why.
func TestEndingLeave(t *testing.T) {
	cert := []byte(`{"record":{"id":1}}`)
	got, err, left := leaveAgainst(t, cert)
	if err != nil || !bytes.Equal(got, cert) || !left {
		t.Fatalf("Leave: %q, %v (server read a Leave: %v)", got, err, left)
	}
	got, err, _ = leaveAgainst(t, nil)
	if err == nil || got != nil {
		t.Fatalf("Leave from a server sending no result: %q, %v", got, err)
	}
}

// TestEndingKeep: Keep takes match results only, keeps the first, and
// claims a malformed one without keeping it.
func TestEndingKeep(t *testing.T) {
	var e join.Ending
	first, _ := (&join.MatchResult{Certificate: []byte("first")}).Append(nil)
	second, _ := (&join.MatchResult{Certificate: []byte("second")}).Append(nil)
	accepted, _ := (&join.JoinAccepted{Player: 1, RoomSize: 1}).Append(nil)
	for _, tc := range []struct {
		data []byte
		kept bool
	}{
		{nil, false},
		{[]byte{0x20, 1}, false},
		{accepted, false},
		{[]byte{0xC0, 0x00, 0x54, 9}, true}, // malformed: claimed, not kept
		{first, true},
		{second, true},
	} {
		if got := e.Keep(tc.data); got != tc.kept {
			t.Errorf("Keep(% x) = %v, want %v", tc.data, got, tc.kept)
		}
	}
	if string(e.Certificate()) != "first" {
		t.Fatalf("kept %q, want the first result", e.Certificate())
	}
}
