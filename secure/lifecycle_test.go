package secure

import (
	"errors"
	"testing"
	"time"
)

// submitOrders stands for game-order processing: it takes an InGame, so
// only a connection in a game can be handed to it.
func submitOrders(g InGame, orders []byte) error {
	if err := g.Check(); err != nil {
		return err
	}
	_ = orders
	return nil
}

func TestLifecycleTransitions(t *testing.T) {
	s := newServer(t, ServerConfig{})
	c := newClient(t, ClientConfig{}, 1)
	ch, _ := s.HandleUnvalidated(c.Packet(), clientAddr, t0)
	in, _ := c.Handle(ch)
	u, sh, err := s.Accept(in, clientAddr, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.IdleDeadline(); !got.Equal(t0.Add(60 * time.Second)) {
		t.Fatalf("unauthenticated deadline %v", got)
	}
	fin, _ := c.Handle(sh)
	a, err := u.Finish(fin, t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(u.Check(), ErrWrongState) {
		t.Fatal("unauthenticated handle still current after Finish")
	}
	if _, err := u.Finish(fin, t0); !errors.Is(err, ErrWrongState) {
		t.Fatalf("second Finish: %v", err)
	}
	if got := a.IdleDeadline(); !got.Equal(t0.Add(time.Second + 5*time.Minute)) {
		t.Fatalf("authenticated deadline %v", got)
	}

	g, err := a.StartGame()
	if err != nil {
		t.Fatal(err)
	}
	if err := submitOrders(g, []byte("orders")); err != nil {
		t.Fatal(err)
	}
	// The Authenticated handle is stale while in game.
	if _, err := a.Seal(nil, 1, testHeader(1), nil); !errors.Is(err, ErrWrongState) {
		t.Fatalf("stale seal: %v", err)
	}
	if _, err := a.StartGame(); !errors.Is(err, ErrWrongState) {
		t.Fatalf("stale StartGame: %v", err)
	}
	// In game, datagrams flow and push the idle deadline back.
	sealed, err := c.Session().Seal(nil, 1, testHeader(1), []byte("order batch"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Open(nil, 1, testHeader(1), sealed, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got := g.IdleDeadline(); !got.Equal(t0.Add(time.Minute + 5*time.Minute)) {
		t.Fatalf("in-game deadline %v", got)
	}

	a2, err := g.EndGame()
	if err != nil {
		t.Fatal(err)
	}
	if err := submitOrders(g, nil); !errors.Is(err, ErrWrongState) {
		t.Fatalf("orders after the game: %v", err)
	}
	a2.Close()
	if err := submitOrders(g, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("orders after close: %v", err)
	}
	if _, err := a2.Seal(nil, 2, testHeader(2), nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("seal after close: %v", err)
	}
	if st := s.Stats(); st.Admission.Open != 0 || st.Admission.Released != 1 {
		t.Fatalf("close did not release: %+v", st.Admission)
	}
	a2.Close() // idempotent
	if st := s.Stats(); st.Admission.Released != 1 {
		t.Fatal("double release")
	}
}

func TestZeroHandlesAreInvalid(t *testing.T) {
	var g InGame
	if err := submitOrders(g, nil); !errors.Is(err, ErrWrongState) {
		t.Fatalf("zero InGame: %v", err)
	}
	var u Unauthenticated
	if _, ok := u.Resend(nil); ok {
		t.Fatal("zero Unauthenticated resends")
	}
	u.Close()
}

func TestUnauthenticatedCloseReleasesSlot(t *testing.T) {
	s := newServer(t, ServerConfig{Limits: Limits{MaxConnections: 1}})
	c := newClient(t, ClientConfig{}, 1)
	ch, _ := s.HandleUnvalidated(c.Packet(), clientAddr, t0)
	in, _ := c.Handle(ch)
	u, _, err := s.Accept(in, clientAddr, t0)
	if err != nil {
		t.Fatal(err)
	}
	if reply, _ := s.HandleUnvalidated(newClient(t, ClientConfig{}, 2).Packet(), clientAddr, t0); Classify(reply) != KindRefuse {
		t.Fatal("full server did not refuse")
	}
	u.Close() // e.g. its IdleDeadline passed
	if reply, _ := s.HandleUnvalidated(newClient(t, ClientConfig{}, 3).Packet(), clientAddr, t0); Classify(reply) != KindChallenge {
		t.Fatal("slot not released")
	}
}
