package fogserver_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/fogauth/fogserver"
	"github.com/tickwire/tickwire/internal/roomtest"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/room"
)

// TestSlowClientDropped: the room driver's backpressure policy in a
// fog-authoritative room. One of three clients stops reading after its
// join: the server drops it once it has taken nothing for
// room.SendGrace (before, the room logged a warning for every refused
// send and kept computing its view), counts it and logs it once, and the
// client, reading again, finds the policy's reason; the other two keep
// receiving state throughout.
func TestSlowClientDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := fogserver.Model(fogserver.Config{UnitsPerPlayer: 10, Seed: func() uint64 { return 3 }})
		s := roomtest.Start(t, m, server.Config{})
		defer s.Close()
		a, _ := s.Join("r", 3, false)
		slow, _ := s.Join("r", 3, true)
		b, _ := s.Join("r", 3, false)
		ra, rb := roomtest.Read(a, nil), roomtest.Read(b, nil)
		for range room.SendGrace/time.Second + 1 {
			s.Playing(time.Second, ra, rb)
		}
		s.ExpectTooSlow(slow)
		for range 3 {
			s.Playing(time.Second, ra, rb)
		}
		if n := s.Logs.Len(); n > 20 {
			t.Errorf("%d log records", n)
		}
	})
}
