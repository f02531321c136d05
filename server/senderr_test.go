package server

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// TestSendErrorsCounted: every failed send of a room is counted by cause
// and in Stats, the first of each cause is logged once for the room, and
// a peer that backs up leaves the match.
func TestSendErrorsCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		s := New(Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		defer s.Close()
		r := &lockstepRoom{s: s, name: "r", size: 2, log: s.cfg.Logger, closeSeat: func(int, string) {}}
		core, err := relay.New(relay.Config{}, []protocol.PlayerID{1, 2}, 0)
		if err != nil {
			t.Fatal(err)
		}
		r.core = core
		r.notices, r.late = make([]msg.LateNotice, 2), make([]bool, 2)
		core.Ready()
		core.Advance()
		live, peer, err := transport.Pipe(t.Context(), lanes.TransportConfig())
		if err != nil {
			t.Fatal(err)
		}
		defer peer.Close()
		defer live.Close()
		ended, endedPeer, err := transport.Pipe(t.Context(), lanes.TransportConfig())
		if err != nil {
			t.Fatal(err)
		}
		endedPeer.Close()
		ended.Close()
		m1, m2 := &member{id: 1, conn: live}, &member{id: 2, conn: ended}
		notice := &msg.DesyncDetected{Tick: 1}

		// A connection that ended, three times.
		r.buf, _ = s.codec.Append(r.buf[:0], notice)
		for range 3 {
			r.deliver(m2, notice)
		}
		// A message over the lane's limit.
		r.buf = make([]byte, lanes.MaxMessageSize()+1)
		r.deliver(m1, notice)
		// The largest frames, queued faster than any acknowledgement can
		// come back (the bubble's clock stands still): backpressure.
		r.buf = make([]byte, lanes.MaxMessageSize())
		for range 4 {
			r.deliver(m1, notice)
		}

		st := s.Stats()
		want := [NumSendCauses]uint64{SendClosed: 3, SendTooLarge: 1, SendBackpressure: 2}
		if st.SendErrors != want {
			t.Errorf("send errors %v, want %v", st.SendErrors, want)
		}
		if n := strings.Count(logs.String(), "relay: send failed"); n != 3 {
			t.Errorf("%d send failures logged, want one per cause (3):\n%s", n, logs.String())
		}
		if n := strings.Count(logs.String(), "cannot keep up"); n != 1 {
			t.Errorf("%d removals for backpressure logged, want 1", n)
		}
		// Before play a Leave removes at once; it is scheduled once.
		if p, _ := core.Player(1); p.Status != relay.StatusRemoved {
			t.Errorf("player 1 backed up and is %v", p.Status)
		}
		if rd := core.Ready(); len(rd.Events) != 2 {
			t.Errorf("events after the backpressure: %v, want one removal", rd.Events)
		}
	})
}
