package transport

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestAcknowledged: a peer that reads acknowledges what it gets, so
// nothing stays outstanding and the count grows; a peer whose receive
// buffer is full acknowledges nothing more while datagrams wait for it.
func TestAcknowledged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := Config{MaxReceiveBuffer: 1, Channels: []ChannelConfig{{ID: 1, Name: "r", Reliability: ReliableOrdered, Priority: Critical}}}
		peer, c, err := Pipe(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer peer.Close()
		defer c.Close()
		if err := c.Send(1, []byte("one")); err != nil {
			t.Fatal(err)
		}
		c.Flush()
		if _, err := peer.Receive(t.Context()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		out, acked := c.Acknowledged()
		if out != 0 || acked == 0 {
			t.Fatalf("after a read: %d outstanding, %d acknowledged", out, acked)
		}
		for range 3 { // the first fills the peer's buffer; the rest wait
			if err := c.Send(1, []byte("more")); err != nil {
				t.Fatal(err)
			}
			c.Flush()
			time.Sleep(100 * time.Millisecond)
		}
		_, before := c.Acknowledged()
		time.Sleep(time.Second)
		out, after := c.Acknowledged()
		if out == 0 || after != before {
			t.Fatalf("a peer that reads nothing: %d outstanding, acknowledged %d then %d", out, before, after)
		}
	})
}
