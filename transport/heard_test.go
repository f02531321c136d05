package transport

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestHeard: a peer that reads names the datagrams it gets, reliable or
// not; a peer whose receive buffer is full names none of those sent
// after, though it keeps sending (its heartbeat).
func TestHeard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := Config{MaxReceiveBuffer: 1, Channels: []ChannelConfig{
			{ID: 1, Name: "r", Reliability: ReliableOrdered, Priority: Critical},
			{ID: 2, Name: "u", Reliability: Unreliable, Priority: High}}}
		peer, c, err := Pipe(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer peer.Close()
		defer c.Close()
		send := func(ch ChannelID) {
			t.Helper()
			if err := c.Send(ch, []byte("m")); err != nil {
				t.Fatal(err)
			}
			c.Flush()
		}
		_, before := c.Heard()
		for range 20 { // a stream of unreliable data, which the peer reads
			send(2)
			if _, err := peer.Receive(t.Context()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if _, heard := c.Heard(); heard == before {
			t.Fatal("a peer that reads named nothing of a stream")
		}
		send(1) // fills the peer's buffer
		time.Sleep(100 * time.Millisecond)
		asked0, heard0 := c.Heard()
		for range 5 {
			send(1)
			send(2)
			time.Sleep(500 * time.Millisecond)
		}
		asked, heard := c.Heard()
		if asked == asked0 || heard != heard0 {
			t.Fatalf("a peer that reads nothing: asked %d → %d, heard %d → %d", asked0, asked, heard0, heard)
		}
	})
}
