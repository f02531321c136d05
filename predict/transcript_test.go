package predict_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/sim/action"
)

// TestTranscripts replays the server scenarios in testdata/transcripts,
// one per file, and compares what the authoritative loop sends with the
// recorded transcript. Regenerate with: go test ./predict -run
// TestTranscripts -rewrite
//
// Commands (ticks are 1/60 s; the server's clock is at the tick last run):
//
//	new players=1,2 [late=reject] [full-every=N] [max-ahead=N] [rate=N]
//	input p=ID seq=N tick=T [move=X,Y] [cast=ACTIONSEQ] [acked=SNAPTICK] [as=ID]
//	    one InputMessage with one input, arriving now
//	tick to=T [quiet]   run ticks up to T and print what is sent (quiet: acks
//	                    and snapshots only for player 1)
//	stats
func TestTranscripts(t *testing.T) {
	datadriven.Walk(t, "testdata/transcripts", func(t *testing.T, path string) {
		var srv *predict.Server
		var players []predict.PlayerID
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			if td.Cmd != "new" && srv == nil {
				td.Fatalf(t, "start with new")
			}
			switch td.Cmd {
			case "new":
				cfg := predict.ServerConfig{FullEvery: argInt(t, td, "full-every", 0), MaxAhead: argInt(t, td, "max-ahead", 0),
					MaxInputRate: argInt(t, td, "rate", 0)}
				if td.HasArg("late") {
					cfg.Late = predict.LateReject
				}
				srv = predict.NewServer(cfg, actiongame.New(action.Config{NoColliders: true}, 1))
				players = nil
				var list string
				td.ScanArgs(t, "players", &list)
				for _, p := range strings.Split(list, ",") {
					n, _ := strconv.Atoi(p)
					players = append(players, predict.PlayerID(n))
					if err := srv.Join(0, predict.PlayerID(n)); err != nil {
						td.Fatalf(t, "%v", err)
					}
				}
				return describe(t, srv, false)
			case "input":
				p := predict.PlayerID(argInt(t, td, "p", 1))
				in := predict.Input{Sequence: uint32(argInt(t, td, "seq", 1)), IntendedTick: uint64(argInt(t, td, "tick", 1))}
				in.ClientTick = in.IntendedTick
				if td.HasArg("move") {
					var xy string
					td.ScanArgs(t, "move", &xy)
					x, y, _ := strings.Cut(xy, ",")
					mx, _ := strconv.Atoi(x)
					my, _ := strconv.Atoi(y)
					in.MoveX, in.MoveY = int8(mx), int8(my)
				}
				if td.HasArg("cast") {
					in.Actions = []predict.Action{{ID: actiongame.ActionCast, Sequence: uint32(argInt(t, td, "cast", 1))}}
				}
				m := predict.InputMessage{Player: predict.PlayerID(argInt(t, td, "as", int(p))), AckedSnap: uint64(argInt(t, td, "acked", 0)), Inputs: []predict.Input{in}}
				b, _ := m.Append(nil)
				now := time.Duration(srv.ServerTick()) * time.Second / 60
				if err := srv.Receive(now, p, b); err != nil {
					return "refused: " + err.Error() + "\n"
				}
				return ""
			case "tick":
				to := uint64(argInt(t, td, "to", 1))
				var out strings.Builder
				for srv.ServerTick() < to {
					srv.Tick(time.Duration(srv.ServerTick()+1) * time.Second / 60)
					out.WriteString(describe(t, srv, td.HasArg("quiet")))
				}
				return out.String()
			case "stats":
				st := srv.Stats()
				return fmt.Sprintf("ticks=%d applied=%d late=%d dropped=%d clamped=%d rejected=%d events=%d full=%d delta=%d\n",
					st.Ticks, st.InputsApplied, st.InputsLate, st.InputsDropped, st.InputsClamped, st.InputsRejected,
					st.Events, st.FullSnapshots, st.DeltaSnapshots)
			}
			td.Fatalf(t, "unknown command %s", td.Cmd)
			return ""
		})
	})
}

func argInt(t *testing.T, td *datadriven.TestData, key string, def int) int {
	if !td.HasArg(key) {
		return def
	}
	var v int
	td.ScanArgs(t, key, &v)
	return v
}

// describe prints and drains the server's Ready, one line a message.
func describe(t *testing.T, srv *predict.Server, quiet bool) string {
	var out strings.Builder
	events := map[uint64]bool{}
	for _, m := range srv.Ready().Messages {
		typ, _ := predict.TypeOf(m.Data)
		if quiet && m.To != 1 && typ != predict.TypeEvent {
			continue
		}
		prefix := fmt.Sprintf("tick %d -> %d ", srv.ServerTick(), m.To)
		switch typ {
		case predict.TypeHello:
			var h predict.Hello
			h.Parse(m.Data)
			fmt.Fprintf(&out, "%sHello player=%d tps=%d tick=%d\n", prefix, h.Player, h.TickRate, h.ServerTick)
		case predict.TypeInputAck:
			var a predict.InputAck
			a.Parse(m.Data)
			late := ""
			if a.Late {
				late = " late"
			}
			if a.Clamped {
				late += " clamped"
			}
			fmt.Fprintf(&out, "%sInputAck seq=%d applied=%d%s\n", prefix, a.Sequence, a.AppliedTick, late)
		case predict.TypeEvent:
			var e predict.EventMessage
			e.Parse(m.Data)
			if events[e.ID] {
				continue // the same event goes to every player: print it once
			}
			events[e.ID] = true
			kind := action.EventKind(e.Type).String()
			if e.Type == predict.TypeRefused {
				kind = "refused"
			}
			fmt.Fprintf(&out, "tick %d -> all Event #%d %s player=%d input=%d action=%d entity=%d target=%d value=%d\n",
				srv.ServerTick(), e.ID, kind, e.Player, e.InputSeq, e.ActionSeq, e.Entity, e.Target, e.Value)
		case predict.TypeSnapshot:
			var s predict.SnapshotMessage
			if err := s.Parse(m.Data); err != nil {
				t.Fatal(err)
			}
			kind := "full"
			if s.BaselineTick != 0 {
				kind = fmt.Sprintf("delta base=%d", s.BaselineTick)
			}
			fmt.Fprintf(&out, "%sSnapshot %s acked=%v late=%d clamped=%d interacted=%d removed=%v records=%d bytes=%d\n", prefix, kind,
				s.Acked, s.LateTick, s.ClampedTick, s.InteractedTick, s.Removed, len(s.Records), len(m.Data))
		}
	}
	srv.Advance()
	return out.String()
}
