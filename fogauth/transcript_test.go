package fogauth

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/sim"
)

// TestTranscripts replays the scenarios in testdata/transcripts, one per
// file. Regenerate with: go test ./fogauth -run TestTranscripts -rewrite
//
// Commands (cells are map cells; an entity stands in the middle of its
// cell; the ids printed and given in orders are the client's: its aliases,
// numbered from 1 in the order it first sees entities, by position within
// a tick):
//
//	map size=N players=N              a flat, open map
//	place TYPE owner=P at=X,Y         an entity present at the start
//	start [kbps=N] [max-entities=N] [msg=N] [full-map]   create the room
//	join c=ID p=P                     seat a client (p=0: spectator)
//	order c=ID move units=A,B to=X,Y  the client gives an order, naming its aliases (sent with its next flush)
//	tick [n=N] [quiet]                run N ticks; the room's messages wait in the clients' inboxes
//	deliver c=ID [drop=all|I,J]       hand the client its inbox, dropping messages I, J (0 = first)
//	flush c=ID                        the client's acknowledgement and orders reach the room
//	world c=ID                        print the client's partial world
//	pending c=ID                      what the room still has to send the client
func TestTranscripts(t *testing.T) {
	datadriven.Walk(t, "testdata/transcripts", func(t *testing.T, path string) {
		s := &script{}
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			var out strings.Builder
			s.out = &out
			s.run(t, td)
			return out.String()
		})
	})
}

type script struct {
	md    sim.MapData
	room  *Room
	now   time.Duration
	names map[protocol.EntityID]string
	cl    map[ClientID]*Client
	inbox map[ClientID][][]byte
	out   *strings.Builder
}

func (s *script) run(t *testing.T, td *datadriven.TestData) {
	switch td.Cmd {
	case "map":
		var size, players int
		td.ScanArgs(t, "size", &size)
		td.ScanArgs(t, "players", &players)
		s.md = sim.MapData{Width: size, Height: size, Cells: make([]sim.Cell, size*size), Players: players}
		s.names = map[protocol.EntityID]string{}
	case "place":
		typ := entityType(t, td, td.CmdArgs[0].Key)
		var owner int
		td.ScanArgs(t, "owner", &owner)
		x, y := cellArg(t, td, "at")
		s.md.Entities = append(s.md.Entities, sim.Placement{Type: typ, Owner: protocol.PlayerID(owner), Pos: cellPos(x, y)})
		s.names[protocol.EntityID(len(s.md.Entities))] = td.CmdArgs[0].Key
	case "start":
		cfg := Config{FullMapSpectators: td.HasArg("full-map")}
		scan(t, td, "kbps", &cfg.BandwidthPerClientKbps)
		scan(t, td, "max-entities", &cfg.MaxEntitiesPerUpdate)
		scan(t, td, "msg", &cfg.MaxMessageSize)
		r, err := newRTSRoom(cfg, s.md, sim.Config{}, 1, 0)
		if err != nil {
			td.Fatalf(t, "%v", err)
		}
		s.room, s.cl, s.inbox = r, map[ClientID]*Client{}, map[ClientID][][]byte{}
		fmt.Fprintf(s.out, "budget %d bytes per tick\n", cfg.BudgetBytes())
	case "join":
		id, p := s.clientArg(t, td), 0
		td.ScanArgs(t, "p", &p)
		if err := s.room.AddClient(id, protocol.PlayerID(p)); err != nil {
			td.Fatalf(t, "%v", err)
		}
		s.cl[id] = NewClient(protocol.PlayerID(p))
		s.inbox[id] = nil
	case "order":
		id := s.clientArg(t, td)
		var units []protocol.EntityID
		for _, v := range strings.Split(arg(t, td, "units"), ",") {
			n, _ := strconv.Atoi(v)
			units = append(units, protocol.EntityID(n))
		}
		x, y := cellArg(t, td, "to")
		s.cl[id].SubmitOrder(protocol.TimestampedOrder{Order: protocol.Move{Units: units, Target: cellPos(x, y)}})
	case "tick":
		n := 1
		scan(t, td, "n", &n)
		for range n {
			s.now = s.room.NextDeadline()
			if err := s.room.RunDue(s.now); err != nil {
				td.Fatalf(t, "%v", err)
			}
			for _, e := range s.room.Ready().Messages {
				s.inbox[e.To] = append(s.inbox[e.To], append([]byte(nil), e.Data...))
				if !td.HasArg("quiet") {
					s.describe(e)
				}
			}
			s.room.Advance()
		}
		if td.HasArg("quiet") {
			fmt.Fprintf(s.out, "now at tick %d\n", s.room.Tick())
		}
	case "deliver":
		id := s.clientArg(t, td)
		drop := map[int]bool{}
		all := false
		if td.HasArg("drop") {
			v := arg(t, td, "drop")
			all = v == "all"
			for _, f := range strings.Split(v, ",") {
				if i, err := strconv.Atoi(f); err == nil {
					drop[i] = true
				}
			}
		}
		for i, m := range s.inbox[id] {
			if all || drop[i] {
				fmt.Fprintf(s.out, "c%d lost message %d\n", id, i)
				continue
			}
			if err := s.cl[id].Receive(m); err != nil {
				td.Fatalf(t, "%v", err)
			}
		}
		s.inbox[id] = nil
		c := s.cl[id].Counters()
		fmt.Fprintf(s.out, "c%d holds %d entities at tick %d (enters %d, updates %d, leaves %d, unknown %d, rejections %d)\n",
			id, c.EntitiesTracked, s.cl[id].World().Tick(), c.World.Enters, c.World.Updates, c.World.Leaves, c.World.Unknown, c.Rejections)
	case "flush":
		id := s.clientArg(t, td)
		orders, ack, err := s.cl[id].Flush()
		if err != nil {
			td.Fatalf(t, "%v", err)
		}
		if ack != nil {
			parts, _ := ParseAck(ack, nil)
			fmt.Fprintf(s.out, "c%d acks %v\n", id, parts)
			if err := s.room.Step(id, ack); err != nil {
				td.Fatalf(t, "%v", err)
			}
		}
		for _, o := range orders {
			fmt.Fprintf(s.out, "c%d sends orders (%d bytes)\n", id, len(o))
			if err := s.room.Step(id, o); err != nil {
				td.Fatalf(t, "%v", err)
			}
		}
	case "world":
		id := s.clientArg(t, td)
		for _, e := range s.cl[id].World().ClientEntities() {
			fmt.Fprintf(s.out, "%d %s owner=%d cell=%d,%d health=%d/%d anim=%d target=%d\n", e.ID, s.name(s.room.SimID(id, e.ID)), e.Owner,
				e.Pos.X/protocol.CellSize, e.Pos.Y/protocol.CellSize, e.Health, e.HealthMax, e.Anim, e.Target)
		}
	case "pending":
		v := s.room.client(s.clientArg(t, td))
		for _, p := range v.view.pend {
			d := p.delta(&v.view, rtsOf(s.room).Entities())
			fmt.Fprintf(s.out, "%s %d%s accum=%d\n", kindName(d.Kind), p.alias, maskNames(d.Mask), v.view.entries[p.entry].accum)
		}
	default:
		td.Fatalf(t, "unknown command %q", td.Cmd)
	}
}

// describe prints one message the room sends.
func (s *script) describe(e Envelope) {
	if e.Reliable {
		r, _ := ParseRejection(e.Data)
		fmt.Fprintf(s.out, "tick %d -> c%d Rejection: %v order %v x%d\n", r.Tick, e.To, reasonName(r.Reason), r.Kind, r.Count)
		return
	}
	u, err := ParseStateUpdate(e.Data, nil)
	if err != nil {
		fmt.Fprintf(s.out, "-> c%d undecodable: %v\n", e.To, err)
		return
	}
	fmt.Fprintf(s.out, "tick %d -> c%d StateUpdate %d bytes:", u.Tick, e.To, len(e.Data))
	if len(u.Deltas) == 0 {
		fmt.Fprintf(s.out, " (empty)")
	}
	for _, d := range u.Deltas {
		fmt.Fprintf(s.out, " %s %d", kindName(d.Kind), d.Entity.ID)
		if d.Kind == DeltaUpdate {
			fmt.Fprint(s.out, maskNames(d.Mask))
		}
	}
	fmt.Fprintln(s.out)
}

func (s *script) name(id protocol.EntityID) string {
	if n, ok := s.names[id]; ok {
		return n
	}
	return "produced"
}

func kindName(k byte) string {
	switch k {
	case DeltaEnter:
		return "enter"
	case DeltaUpdate:
		return "update"
	}
	return "leave"
}

func maskNames(m FieldMask) string {
	if m == 0 {
		return ""
	}
	names := []string{"pos", "health", "facing", "target", "flags", "cargo", "anim", "vet", "owner"}
	var f []string
	for i, n := range names {
		if m&(1<<i) != 0 {
			f = append(f, n)
		}
	}
	return "[" + strings.Join(f, ",") + "]"
}

func entityType(t *testing.T, td *datadriven.TestData, name string) sim.EntityType {
	for typ := sim.TypeInfantry; typ <= sim.TypeHusk; typ++ {
		if sim.RulesOf(typ).Name == name {
			return typ
		}
	}
	td.Fatalf(t, "unknown entity type %q", name)
	return 0
}

func cellPos(x, y int) protocol.WorldPos {
	return protocol.WorldPos{X: protocol.SimCoord(x)*protocol.CellSize + protocol.CellSize/2, Y: protocol.SimCoord(y)*protocol.CellSize + protocol.CellSize/2}
}

func cellArg(t *testing.T, td *datadriven.TestData, key string) (int, int) {
	var x, y int
	if _, err := fmt.Sscanf(arg(t, td, key), "%d,%d", &x, &y); err != nil {
		td.Fatalf(t, "%s: %v", key, err)
	}
	return x, y
}

func arg(t *testing.T, td *datadriven.TestData, key string) string {
	for _, a := range td.CmdArgs {
		if a.Key == key {
			return strings.Join(a.Vals, ",")
		}
	}
	td.Fatalf(t, "missing %s=", key)
	return ""
}

func scan(t *testing.T, td *datadriven.TestData, key string, v *int) {
	if td.HasArg(key) {
		td.ScanArgs(t, key, v)
	}
}

func (s *script) clientArg(t *testing.T, td *datadriven.TestData) ClientID {
	var id int
	td.ScanArgs(t, "c", &id)
	return ClientID(id)
}
