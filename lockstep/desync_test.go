package lockstep_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/lockstepbot"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server"
)

// TestInjectedDesyncReport is the desync drill end to end, through the
// real server, transport and clients in virtual time: several rooms of
// three bots play at once, and in each one bot corrupts one field of one
// entity at one tick (a sweep of entities, fields and ticks, on and off
// the sync ticks). Every room's walk must end in a report, sent to every
// client and written by the relay, that puts the corrupted bot alone in the minority and names the
// corrupted entity and field.
func TestInjectedDesyncReport(t *testing.T) {
	faults := []lockstepbot.Fault{
		{At: 30, Field: "health"},
		{At: 60, Field: "kills"},
		{At: 45, Entity: 1, Field: "cargo"},
		{At: 30, Field: "veterancy"},
		{At: 60, Entity: 2, Field: "health"},
		{At: 75, Entity: 3, Field: "kills"},
	}
	if raceEnabled {
		faults = faults[:3] // the whole sweep takes 25 s under the race detector
	}
	const size, ticks = 3, 150
	synctest.Test(t, func(t *testing.T) {
		dir, relayDir := t.TempDir(), t.TempDir()
		rn := startRelay(t, server.Config{}, lockstepserver.Config{DesyncDir: relayDir})
		defer rn.close()
		cfg := lockstepbot.Config{Players: size * len(faults), RoomSize: size, Ticks: ticks,
			Desync: lockstepbot.DesyncConfig{ReportDir: dir}}
		for i, f := range faults {
			f.Bot = size * i
			cfg.Desync.Faults = append(cfg.Desync.Faults, f)
		}
		cfg.Join = func(ctx context.Context, i int) (lockstepbot.Client, error) {
			conn, err := rn.dial(ctx, netsim.Link{Latency: 20 * time.Millisecond}, uint64(i+1))
			if err != nil {
				return nil, err
			}
			return lockstep.JoinRelay(ctx, conn, fmt.Sprintf("drill-%d", i/size), size, lockstep.RelayClientConfig{})
		}
		rep, err := lockstepbot.Run(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		// Run sorts the bots by player id: find each room by its report.
		byReport := map[string]int{}
		var faulty []lockstepbot.PlayerReport
		for _, p := range rep.Players {
			if p.DesyncReport == "" {
				t.Fatalf("bot %d got no report: %+v", p.ID, p)
			}
			byReport[p.DesyncReport]++
			if p.InjectedDesync != nil {
				faulty = append(faulty, p)
			}
		}
		if len(faulty) != len(faults) || len(byReport) != len(faults) {
			t.Fatalf("%d faults injected, %d reports, want %d", len(faulty), len(byReport), len(faults))
		}
		for i, faulty := range faulty {
			inj := faulty.InjectedDesync
			if byReport[faulty.DesyncReport] != size {
				t.Fatalf("report %s went to %d bots", faulty.DesyncReport, byReport[faulty.DesyncReport])
			}
			b, err := os.ReadFile(filepath.Join(dir, faulty.DesyncReport))
			if err != nil {
				t.Fatal(err)
			}
			if rb, err := os.ReadFile(filepath.Join(relayDir, faulty.DesyncReport)); err != nil || string(rb) != string(b) {
				t.Fatalf("the relay's copy of %s: %v, equal %v", faulty.DesyncReport, err, string(rb) == string(b))
			}
			var r relay.DesyncReport
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Minority, []protocol.PlayerID{protocol.PlayerID(faulty.ID)}) || len(r.Majority) != size-1 || r.Tick < inj.Tick {
				t.Fatalf("room %d: fault %+v by player %d: report tick %d, majority %v, minority %v", i, inj, faulty.ID, r.Tick, r.Majority, r.Minority)
			}
			found := false
			for _, l := range r.Divergences[0].Leaves {
				for _, d := range l.Differences {
					found = found || (d.Entity == uint32(inj.Entity) && d.Field == inj.Field)
				}
			}
			if !found {
				t.Errorf("room %d: fault %+v: the report does not name it:\n%s", i, inj, b)
			}
			t.Logf("room %d: fault %+v found at tick %d in %d round trips, %d messages, %d bytes", i, *inj, r.Tick, r.Cost.RoundTrips, r.Cost.Messages, r.Cost.Bytes)
		}
	})
}
