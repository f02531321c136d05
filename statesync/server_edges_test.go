package statesync_test

import (
	"errors"
	"testing"
	"time"

	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/msg"
)

// TestRoomFullAtMaxClients: the room takes exactly MaxClients clients; the
// next is refused with ErrRoomFull, and a leave makes room again.
func TestRoomFullAtMaxClients(t *testing.T) {
	srv := statesync.NewServer(statesync.Config{MaxClients: 3}, 0)
	for id := uint32(1); id <= 3; id++ {
		if err := srv.Join(0, id); err != nil {
			t.Fatalf("client %d of 3: %v", id, err)
		}
	}
	if err := srv.Join(0, 4); !errors.Is(err, statesync.ErrRoomFull) {
		t.Fatalf("client 4 of a room of 3: %v, want ErrRoomFull", err)
	}
	srv.Leave(0, 2)
	if err := srv.Join(0, 4); err != nil {
		t.Fatalf("client 4 after a leave: %v", err)
	}
}

// TestEmptiedRoomBootstrapsAgain: when every client of a running room has
// left, the next one founds it again (ACTIVE at once, a bootstrap Welcome)
// instead of waiting for a full state nobody can send.
func TestEmptiedRoomBootstrapsAgain(t *testing.T) {
	r := healthyRoom(t, 51, 2)
	r.leave(1)
	r.leave(2)
	r.frames(5)
	r.join(3)
	if got := r.srv.State(3); got != statesync.StateActive {
		t.Fatalf("the first client of an emptied room is %v, want ACTIVE", got)
	}
	joined := r.events(statesync.EventJoined)
	if last := joined[len(joined)-1]; last.Client != 3 || !last.Bootstrap {
		t.Fatalf("join event %+v, want client 3 founding the room", last)
	}
	r.frames(20)
	if ok, bad := r.inSync(); !ok {
		t.Fatalf("out of sync: %v", bad)
	}
}

// TestRejoinIntervalExactly: a HELLO one nanosecond short of
// RejoinInterval after the join is a flood; one at exactly RejoinInterval
// is served.
func TestRejoinIntervalExactly(t *testing.T) {
	const every = 5 * time.Second
	srv := statesync.NewServer(statesync.Config{RejoinInterval: every}, 0)
	for id := uint32(1); id <= 2; id++ {
		if err := srv.Join(0, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.Rejoin(every-1, 1); !errors.Is(err, statesync.ErrThrottled) {
		t.Fatalf("HELLO at RejoinInterval-1ns: %v, want ErrThrottled", err)
	}
	if err := srv.Rejoin(every, 2); err != nil {
		t.Fatalf("HELLO at exactly RejoinInterval: %v", err)
	}
}

// TestRejoinKeepsOffences: a HELLO does not launder a client's record:
// the flood counted before it is still counted after it.
func TestRejoinKeepsOffences(t *testing.T) {
	srv := statesync.NewServer(statesync.Config{}, 0)
	for id := uint32(1); id <= 2; id++ {
		if err := srv.Join(0, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.Rejoin(time.Second, 1); !errors.Is(err, statesync.ErrThrottled) {
		t.Fatalf("early HELLO: %v", err)
	}
	if err := srv.Rejoin(10*time.Second, 1); err != nil {
		t.Fatalf("HELLO: %v", err)
	}
	if got := srv.Offences(1); got != 1 {
		t.Fatalf("%d offences after the HELLO, want the 1 flood before it", got)
	}
}

// TestInputBytesExactly: an input of exactly InputBytes is taken; one
// byte more is refused with ErrUnexpected.
func TestInputBytesExactly(t *testing.T) {
	srv := statesync.NewServer(statesync.Config{InputBytes: 8}, 0)
	if err := srv.Join(0, 1); err != nil {
		t.Fatal(err)
	}
	if err := srv.Step(0, 1, &msg.Input{Data: make([]byte, 8)}); err != nil {
		t.Fatalf("input of InputBytes: %v", err)
	}
	if err := srv.Step(0, 1, &msg.Input{Data: make([]byte, 9)}); !errors.Is(err, statesync.ErrUnexpected) {
		t.Fatalf("input of InputBytes+1: %v, want ErrUnexpected", err)
	}
}

// TestRosterRequestEveryFiveFrames: roster requests four frames apart are
// a flood; five frames apart they are served.
func TestRosterRequestEveryFiveFrames(t *testing.T) {
	srv := statesync.NewServer(statesync.Config{}, 0)
	if err := srv.Join(0, 1); err != nil {
		t.Fatal(err)
	}
	const frame = 50 * time.Millisecond
	roster := &msg.SyncRequest{What: msg.SyncClientList}
	srv.Tick(0)
	if err := srv.Step(0, 1, roster); err != nil {
		t.Fatalf("first roster request: %v", err)
	}
	srv.Tick(4 * frame) // four frames later
	if err := srv.Step(4*frame, 1, roster); !errors.Is(err, statesync.ErrThrottled) {
		t.Fatalf("roster request 4 frames later: %v, want ErrThrottled", err)
	}
	srv.Tick(5 * frame)
	if err := srv.Step(5*frame, 1, roster); err != nil {
		t.Fatalf("roster request 5 frames later: %v", err)
	}
}

// TestFullStateRequestIntervalExactly: a second full-state SyncRequest
// one nanosecond short of RejoinInterval after the first is a flood; at
// exactly RejoinInterval it is served.
func TestFullStateRequestIntervalExactly(t *testing.T) {
	r := healthyRoom(t, 52, 6)
	full := &msg.SyncRequest{What: msg.SyncFullState}
	t0 := r.now
	if err := r.srv.Step(t0, 5, full); err != nil {
		t.Fatalf("first full-state request: %v", err)
	}
	r.flushServer()
	r.run(t0 + 5*time.Second - 1)
	if got := r.srv.State(5); got != statesync.StateActive {
		t.Fatalf("client 5 is %v after its full state", got)
	}
	if err := r.srv.Step(r.now, 5, full); !errors.Is(err, statesync.ErrThrottled) {
		t.Fatalf("request at RejoinInterval-1ns: %v, want ErrThrottled", err)
	}
	r.run(t0 + 5*time.Second)
	if err := r.srv.Step(r.now, 5, full); err != nil {
		t.Fatalf("request at exactly RejoinInterval: %v", err)
	}
}

// TestNextDeadline: an empty room that never started waits one frame
// interval; a started room's next deadline is the earliest of the next
// frame and the open frames' collection windows.
func TestNextDeadline(t *testing.T) {
	const frame = 50 * time.Millisecond
	srv := statesync.NewServer(statesync.Config{SubmitWindow: 10 * time.Millisecond}, 0)
	srv.Tick(0)
	if got := srv.NextDeadline(); got != frame {
		t.Fatalf("empty room: next deadline %v, want %v", got, frame)
	}
	if err := srv.Join(frame, 1); err != nil {
		t.Fatal(err)
	}
	srv.Tick(frame) // frame 1, collected until frame+10ms
	if got, want := srv.NextDeadline(), frame+10*time.Millisecond; got != want {
		t.Fatalf("next deadline %v, want the collection window's end %v", got, want)
	}
	srv.Tick(frame + 10*time.Millisecond)
	if got, want := srv.NextDeadline(), 2*frame; got != want {
		t.Fatalf("next deadline %v, want the next frame at %v", got, want)
	}
}

// TestClientTimeoutExactly: an ACTIVE client silent for exactly
// ClientTimeout stays; silent for longer it is dropped at the next frame.
func TestClientTimeoutExactly(t *testing.T) {
	const frame = 50 * time.Millisecond
	srv := statesync.NewServer(statesync.Config{ClientTimeout: 3 * time.Second}, 0)
	if err := srv.Join(0, 1); err != nil {
		t.Fatal(err)
	}
	for now := time.Duration(0); now <= 3*time.Second; now += frame {
		srv.Tick(now)
	}
	if got := srv.State(1); got != statesync.StateActive {
		t.Fatalf("silent for exactly ClientTimeout: %v, want ACTIVE", got)
	}
	srv.Tick(3*time.Second + frame)
	if got := srv.State(1); got != statesync.StateDisconnected {
		t.Fatalf("silent for longer than ClientTimeout: %v, want DISCONNECTED", got)
	}
}

// TestStalledEmbedderNoBurst: Tick catches up on frames missed by at most
// five frame intervals; after a longer stall it broadcasts one frame and
// goes on from now.
func TestStalledEmbedderNoBurst(t *testing.T) {
	const frame = 50 * time.Millisecond
	for _, c := range []struct {
		late   int // frames the Tick comes after the due one
		frames uint32
	}{{5, 6}, {6, 7}, {7, 2}, {100, 2}} {
		srv := statesync.NewServer(statesync.Config{}, 0)
		if err := srv.Join(0, 1); err != nil {
			t.Fatal(err)
		}
		srv.Tick(0)
		before := srv.Frame()
		srv.Tick(frame + time.Duration(c.late)*frame)
		if got := srv.Frame() - before; got != c.frames {
			t.Errorf("Tick %d frames late broadcast %d frames, want %d", c.late, got, c.frames)
		}
		if st := srv.Stats(); st.Frames != uint64(srv.Frame()-1) {
			t.Errorf("Stats.Frames %d after %d frames", st.Frames, srv.Frame()-1)
		}
	}
}

// drainTicks returns the Ticks the server broadcast since the last call
// and releases everything it produced.
func drainTicks(srv *statesync.Server) []*msg.Tick {
	var out []*msg.Tick
	for srv.HasReady() {
		rd := srv.Ready()
		for _, env := range rd.Messages {
			if tk, ok := env.Msg.(*msg.Tick); ok {
				out = append(out, tk)
			}
		}
		srv.Advance(rd)
	}
	return out
}

// TestTickInputs: a Tick carries the input of each client that sent one,
// none for the silent ones, and one empty input for each client that left
// since the last Tick, however often it left.
func TestTickInputs(t *testing.T) {
	const frame = 50 * time.Millisecond
	srv := statesync.NewServer(statesync.Config{}, 0)
	for id := uint32(1); id <= 5; id++ {
		if err := srv.Join(0, id); err != nil {
			t.Fatal(err)
		}
	}
	srv.Tick(0)
	drainTicks(srv)
	if err := srv.Step(frame, 2, &msg.Input{Data: []byte("go")}); err != nil {
		t.Fatal(err)
	}
	srv.Leave(frame, 3)
	srv.Leave(frame, 5)
	if err := srv.Join(frame, 5); err != nil {
		t.Fatal(err)
	}
	srv.Leave(frame, 5)
	srv.Tick(frame)
	ticks := drainTicks(srv)
	if len(ticks) != 1 {
		t.Fatalf("%d Ticks, want 1", len(ticks))
	}
	got := ticks[0].Inputs
	want := []msg.ClientInput{{Client: 2, Data: []byte("go")}, {Client: 3}, {Client: 5}}
	if len(got) != len(want) {
		t.Fatalf("inputs %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Client != want[i].Client || string(got[i].Data) != string(want[i].Data) {
			t.Fatalf("inputs %+v, want %+v", got, want)
		}
	}
}

// requestsOf counts the requests of one kind in ticks.
func requestsOf(ticks []*msg.Tick, kind msg.RequestKind) (n int) {
	for _, tk := range ticks {
		for _, q := range tk.Requests {
			if q.Kind == kind {
				n++
			}
		}
	}
	return n
}

// lateJoinAssembly is a room of clients 1 and 2 whose late joiner 3 has
// its full state asked of both, in the Tick it returns.
func lateJoinAssembly(t *testing.T) (*statesync.Server, []*msg.Tick) {
	srv := statesync.NewServer(statesync.Config{}, 0)
	for id := uint32(1); id <= 2; id++ {
		if err := srv.Join(0, id); err != nil {
			t.Fatal(err)
		}
	}
	srv.Tick(0)
	if err := srv.Join(0, 3); err != nil {
		t.Fatal(err)
	}
	drainTicks(srv)
	srv.Tick(50 * time.Millisecond)
	asked := drainTicks(srv)
	if n := requestsOf(asked, msg.RequestFullPart); n != 2 {
		t.Fatalf("%d full-state parts asked for the joiner, want 2", n)
	}
	return srv, asked
}

// TestMalformedFullPartBlamed: a source whose part decodes but is not a
// well-formed entity set is refused and blamed with an offence.
func TestMalformedFullPartBlamed(t *testing.T) {
	srv, asked := lateJoinAssembly(t)
	var part msg.Request
	for _, q := range asked[0].Requests {
		if q.Kind == msg.RequestFullPart {
			part = q
		}
	}
	bad := &msg.EntityData{Frame: asked[0].Frame, Kind: msg.EntitiesFullPart, Part: part.Part, Parts: part.Parts,
		Encoding: msg.Raw, Data: []byte{1, 2, 3}}
	if err := srv.Step(50*time.Millisecond, part.Client, bad); err == nil {
		t.Fatal("a malformed full-state part was taken")
	}
	if n := srv.Offences(part.Client); n != 1 {
		t.Fatalf("%d offences for the malformed part, want 1", n)
	}
}

// TestAssemblyDeadlineExactly: the sources of a late joiner's full state
// have SubmitWindow + 20 RequestTimeouts after the Tick that asked them;
// a stranger's part is refused meanwhile; at the first frame past the
// deadline the state is asked for again.
func TestAssemblyDeadlineExactly(t *testing.T) {
	const frame = 50 * time.Millisecond
	srv, asked := lateJoinAssembly(t)
	stranger := &msg.EntityData{Frame: asked[0].Frame, Kind: msg.EntitiesFullPart, Part: 0, Parts: 2, Encoding: msg.Raw}
	if err := srv.Step(frame, 3, stranger); !errors.Is(err, statesync.ErrUnexpected) {
		t.Fatalf("a full-state part from a client not asked: %v, want ErrUnexpected", err)
	}
	deadline := frame + 100*time.Millisecond + 20*100*time.Millisecond
	for now := 2 * frame; now <= deadline; now += frame {
		srv.Tick(now)
	}
	if n := requestsOf(drainTicks(srv), msg.RequestFullPart); n != 0 {
		t.Fatalf("%d parts asked again before the deadline", n)
	}
	srv.Tick(deadline + frame)
	if n := requestsOf(drainTicks(srv), msg.RequestFullPart); n != 2 {
		t.Fatalf("%d parts asked again after the deadline, want 2", n)
	}
}

// TestResyncRequested: a client that asks for a full state is told, in
// the next Tick, to wait for one.
func TestResyncRequested(t *testing.T) {
	srv := statesync.NewServer(statesync.Config{}, 0)
	for id := uint32(1); id <= 3; id++ {
		if err := srv.Join(0, id); err != nil {
			t.Fatal(err)
		}
	}
	srv.Tick(0)
	drainTicks(srv)
	if err := srv.Step(0, 2, &msg.SyncRequest{What: msg.SyncFullState}); err != nil {
		t.Fatal(err)
	}
	srv.Tick(50 * time.Millisecond)
	ticks := drainTicks(srv)
	var to []uint32
	for _, q := range ticks[0].Requests {
		if q.Kind == msg.RequestResync {
			to = append(to, q.Client)
		}
	}
	if len(to) != 1 || to[0] != 2 {
		t.Fatalf("resync requests to %v, want [2]", to)
	}
}

// TestStrangerPartitionCounted: a partition from a client the frame did
// not assign it to is refused with ErrStranger, counted and held against
// the sender.
func TestStrangerPartitionCounted(t *testing.T) {
	srv := statesync.NewServer(statesync.Config{}, 0)
	for id := uint32(1); id <= 2; id++ {
		if err := srv.Join(0, id); err != nil {
			t.Fatal(err)
		}
	}
	srv.Tick(0)
	tk := drainTicks(srv)[0]
	pd := &msg.PartitionData{Frame: tk.Frame, ListVersion: tk.ClientListVersion, Part: tk.Parts, Parts: tk.Parts}
	if err := srv.Step(0, 1, pd); !errors.Is(err, statesync.ErrStranger) {
		t.Fatalf("partition %d of %d: %v, want ErrStranger", pd.Part, pd.Parts, err)
	}
	if got := srv.Stats().StrangerPartitions; got != 1 {
		t.Fatalf("Stats.StrangerPartitions %d, want 1", got)
	}
	if got := srv.Offences(1); got != 1 {
		t.Fatalf("%d offences, want 1", got)
	}
}

// TestTieIsNoMajority: two voters reporting two hashes give no verdict (a
// plurality is not a majority, and no tie is broken).
func TestTieIsNoMajority(t *testing.T) {
	srv := statesync.NewServer(statesync.Config{}, 0)
	for id := uint32(1); id <= 2; id++ {
		if err := srv.Join(0, id); err != nil {
			t.Fatal(err)
		}
	}
	srv.Tick(0)
	f := drainTicks(srv)[0].Frame
	for id := uint32(1); id <= 2; id++ {
		if err := srv.Step(0, id, &msg.StateHash{Frame: f, Hash: id}); err != nil {
			t.Fatal(err)
		}
	}
	srv.Tick(100 * time.Millisecond)
	if st := srv.Stats(); st.NoMajority != 1 || st.Verdicts != 0 {
		t.Fatalf("a tie gave %d verdicts and %d no-majority frames, want 0 and 1", st.Verdicts, st.NoMajority)
	}
	srv.Tick(200 * time.Millisecond) // frames 2 and 3 close without a vote
	if st := srv.Stats(); st.NoMajority != 1 {
		t.Fatalf("%d no-majority frames after frames nobody voted on, want still 1", st.NoMajority)
	}
}

// TestVerdictCounted: a frame whose voters agree gets one verdict, counted
// in Stats.Verdicts with its agreeing voters, and its hash is the agreed
// one the room records as the match's final hash.
func TestVerdictCounted(t *testing.T) {
	srv := statesync.NewServer(statesync.Config{}, 0)
	for id := uint32(1); id <= 3; id++ {
		if err := srv.Join(0, id); err != nil {
			t.Fatal(err)
		}
	}
	srv.Tick(0)
	f := drainTicks(srv)[0].Frame
	for id := uint32(1); id <= 3; id++ {
		if err := srv.Step(0, id, &msg.StateHash{Frame: f, Hash: 7 + id/3}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, ok := srv.Agreed(); ok {
		t.Fatal("an agreed hash before any verdict")
	}
	srv.Tick(100 * time.Millisecond)
	if st := srv.Stats(); st.Verdicts != 1 || st.Agreeing != 2 || st.Voters != 3 {
		t.Fatalf("verdicts %d, agreeing %d of %d voters; want 1, 2 of 3", st.Verdicts, st.Agreeing, st.Voters)
	}
	if frame, hash, ok := srv.Agreed(); !ok || frame != f || hash != 7 {
		t.Fatalf("agreed frame %d hash %d (%v), want frame %d hash 7", frame, hash, ok, f)
	}
}
