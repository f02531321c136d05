package statesync_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/tickwire/tickwire/statesync"
)

// TestTranscripts plays the protocol stories in testdata/transcripts: a
// room in virtual time (20-30 ms one way, seeded), commands that join,
// leave, corrupt, lie and split, and what the server did in between.
// Regenerate with -rewrite after a deliberate change and read the diff.
func TestTranscripts(t *testing.T) {
	datadriven.Walk(t, "testdata/transcripts", func(t *testing.T, path string) {
		var r *room
		seen := 0
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "room":
				seed, target := uint64(1), 100
				td.MaybeScanArgs(t, "seed", &seed)
				td.MaybeScanArgs(t, "entities", &target)
				r = newRoom(t, seed, statesync.Config{}, target)
				return ""
			case "join":
				for _, id := range idsArg(t, td) {
					r.join(id)
				}
			case "leave":
				for _, id := range idsArg(t, td) {
					r.leave(id)
				}
			case "frames":
				var n int
				td.ScanArgs(t, "n", &n)
				r.frames(n)
			case "corrupt":
				var id, entity int
				td.ScanArgs(t, "client", &id)
				td.ScanArgs(t, "entity", &entity)
				if !r.clients[uint32(id)].e.corrupt(uint32(entity)) {
					t.Fatalf("client %d has no entity %d", id, entity)
				}
				return ""
			case "lie":
				for _, id := range idsArg(t, td) {
					r.lieAbout[id] = true
				}
				return ""
			case "cut":
				for _, id := range idsArg(t, td) {
					r.cut[id] = true
				}
				return ""
			case "heal":
				for _, id := range idsArg(t, td) {
					delete(r.cut, id)
				}
				return ""
			case "state":
				return roomState(r)
			default:
				t.Fatalf("unknown command %q", td.Cmd)
			}
			out := describeEvents(r.serverEvents[seen:], r)
			seen = len(r.serverEvents)
			return out
		})
	})
}

func idsArg(t *testing.T, td *datadriven.TestData) []uint32 {
	var s string
	td.ScanArgs(t, "ids", &s)
	var out []uint32
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			t.Fatal(err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				t.Fatal(err)
			}
		}
		for id := a; id <= b; id++ {
			out = append(out, uint32(id))
		}
	}
	return out
}

// describeEvents writes the events a reader of a story cares about, one
// a line, and the frames verified per tier.
func describeEvents(evs []statesync.Event, r *room) string {
	var b strings.Builder
	var tiers statesync.TierCounts
	rejected := map[uint32]int{}
	for _, e := range evs {
		switch e.Kind {
		case statesync.EventJoined:
			if e.Bootstrap {
				fmt.Fprintf(&b, "frame %d: client %d joins, ACTIVE (bootstrap)\n", e.Frame, e.Client)
			} else {
				fmt.Fprintf(&b, "frame %d: client %d joins, SYNCING\n", e.Frame, e.Client)
			}
		case statesync.EventLeft:
			fmt.Fprintf(&b, "frame %d: client %d leaves\n", e.Frame, e.Client)
		case statesync.EventTimedOut:
			fmt.Fprintf(&b, "frame %d: client %d silent too long, dropped\n", e.Frame, e.Client)
		case statesync.EventPromoted:
			fmt.Fprintf(&b, "frame %d: client %d agrees with the majority, ACTIVE\n", e.Frame, e.Client)
		case statesync.EventVerdict:
			if len(e.Clients) > 0 {
				fmt.Fprintf(&b, "frame %d: verdict %d of %d agree; desynced %v\n", e.Frame, e.Count, e.Voters, e.Clients)
			}
		case statesync.EventDesync:
			fmt.Fprintf(&b, "frame %d: client %d desynced, recovery starts\n", e.Frame, e.Client)
		case statesync.EventCorrectionSent:
			fmt.Fprintf(&b, "frame %d: correction of %d bucket(s) to client %d\n", e.Frame, e.Count, e.Client)
		case statesync.EventRecovered:
			fmt.Fprintf(&b, "frame %d: client %d recovered after %d frames\n", e.Frame, e.Client, e.Frames)
		case statesync.EventSnapshotFallback:
			fmt.Fprintf(&b, "frame %d: client %d falls back to a full snapshot\n", e.Frame, e.Client)
		case statesync.EventStateRejected:
			fmt.Fprintf(&b, "frame %d: assembled full state rejected\n", e.Frame)
		case statesync.EventReadOnly:
			mode := "writable again"
			if e.On {
				mode = "READ-ONLY"
			}
			fmt.Fprintf(&b, "frame %d: %d of peak %d ACTIVE: %s\n", e.Frame, e.Count, e.Voters, mode)
		case statesync.EventPartitionRejected:
			rejected[e.Client]++
		case statesync.EventTier:
			tiers.Add(e.Tier)
		}
	}
	for _, id := range slices.Sorted(mapsKeys(rejected)) {
		fmt.Fprintf(&b, "partitions of client %d rejected: %d\n", id, rejected[id])
	}
	fmt.Fprintf(&b, "tiers: 1:%d 2:%d 3:%d 4:%d\n", tiers[1], tiers[2], tiers[3], tiers[4])
	for _, id := range r.ids() {
		for _, e := range r.clientEvents[id] {
			if e.Kind == statesync.ClientCorrected {
				fmt.Fprintf(&b, "client %d log: %s\n", id, strings.Join(e.Diffs, "; "))
			}
		}
		r.clientEvents[id] = slices.DeleteFunc(r.clientEvents[id], func(e statesync.ClientEvent) bool {
			return e.Kind == statesync.ClientCorrected
		})
	}
	return b.String()
}

func mapsKeys(m map[uint32]int) func(func(uint32) bool) {
	return func(yield func(uint32) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// roomState lists each client's state and whether the running clients
// agree.
func roomState(r *room) string {
	var b strings.Builder
	for _, id := range r.ids() {
		p := r.clients[id]
		fmt.Fprintf(&b, "client %d: %v running=%v\n", id, r.srv.State(id), p.c.Running())
	}
	ok, bad := r.inSync()
	fmt.Fprintf(&b, "in sync: %v %v\nread-only: %v\n", ok, bad, r.srv.ReadOnly())
	return b.String()
}
