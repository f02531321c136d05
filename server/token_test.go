package server_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/secure"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

func seededKey(b byte) ed25519.PrivateKey {
	seed := make([]byte, ed25519.SeedSize)
	seed[0] = b
	return ed25519.NewKeyFromSeed(seed)
}

// tokenRelay is a relay that requires connect tokens from one matchmaker,
// on an encrypted listener over an in-memory network.
type tokenRelay struct {
	t          *testing.T
	mn         *netsim.MemNetwork
	l          *transport.Listener
	srv        *server.Server
	cfg        server.Config
	identity   ed25519.PrivateKey
	matchmaker ed25519.PrivateKey
}

func newTokenRelay(t *testing.T, models ...room.Model) *tokenRelay {
	tr := &tokenRelay{t: t, mn: netsim.NewMemNetwork(), identity: seededKey(1), matchmaker: seededKey(2)}
	pc, err := tr.mn.ListenPacket("")
	if err != nil {
		t.Fatal(err)
	}
	if len(models) == 0 {
		models = []room.Model{lockstepserver.Model(lockstepserver.Config{})}
	}
	cfg := server.Config{RequireToken: true, Models: models}
	tcfg, err := cfg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	tcfg.Security = &transport.SecurityConfig{Identity: tr.identity, Matchmaker: tr.matchmaker.Public().(ed25519.PublicKey),
		Limits: secure.Limits{MaxPerIP: 100, NewPerSecond: 100}}
	if tr.l, err = transport.Listen(t.Context(), pc, tcfg); err != nil {
		t.Fatal(err)
	}
	tr.srv, tr.cfg = server.New(cfg), cfg
	go tr.srv.Serve(context.Background(), tr.l)
	return tr
}

func (tr *tokenRelay) close() {
	tr.l.Close()
	tr.srv.Close()
}

// token mints a token for player's key and room, signed by mm.
func (tr *tokenRelay) token(mm, player ed25519.PrivateKey, room string, expires time.Time) []byte {
	tr.t.Helper()
	tok, err := secure.IssueToken(mm, secure.Token{Server: tr.identity.Public().(ed25519.PublicKey), Player: player.Public().(ed25519.PublicKey),
		Room: secure.RoomID(room), PlayerID: 9, Expires: expires})
	if err != nil {
		tr.t.Fatal(err)
	}
	return tok
}

// dial connects with player's identity and tok (encrypted unless
// plaintext).
func (tr *tokenRelay) dial(player ed25519.PrivateKey, tok []byte, plaintext bool) (*transport.Conn, error) {
	tr.t.Helper()
	pc, err := tr.mn.ListenPacket("")
	if err != nil {
		tr.t.Fatal(err)
	}
	cfg, err := tr.cfg.Transport()
	if err != nil {
		tr.t.Fatal(err)
	}
	if !plaintext {
		cfg.Security = &transport.SecurityConfig{Identity: player, Token: tok, ServerKey: tr.identity.Public().(ed25519.PublicKey)}
	}
	return transport.Dial(tr.t.Context(), pc, tr.l.Addr(), cfg)
}

// join dials with player's identity and tok (encrypted unless plaintext)
// and asks for a seat in room; it returns the dial error or the answer.
func (tr *tokenRelay) join(player ed25519.PrivateKey, tok []byte, room string, plaintext bool) (join.Message, error) {
	tr.t.Helper()
	c, err := tr.dial(player, tok, plaintext)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	sendJoin(tr.t, c, &join.JoinRoom{Room: room, RoomSize: 2})
	return reply(tr.t, c), nil
}

// TestConnectTokens: a relay with RequireToken seats a player whose token
// is for the room it joins, and refuses one for another room, an expired
// one, one signed by another key, none, and a plaintext connection, each
// with its reason, counted.
func TestConnectTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newTokenRelay(t)
		defer tr.close()
		player := seededKey(3)
		later := time.Now().Add(time.Minute)

		m, err := tr.join(player, tr.token(tr.matchmaker, player, "ranked-1", later), "ranked-1", false)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.(*join.JoinAccepted); !ok {
			t.Fatalf("valid token: %+v", m)
		}

		m, err = tr.join(player, tr.token(tr.matchmaker, player, "ranked-2", later), "ranked-1", false)
		if err != nil {
			t.Fatal(err)
		}
		wantRefused(t, m, join.RefuseToken)

		for _, tc := range []struct {
			name string
			tok  []byte
			want error
		}{
			{"expired", tr.token(tr.matchmaker, player, "ranked-1", time.Now()), secure.ErrTokenExpired},
			{"wrong key", tr.token(seededKey(4), player, "ranked-1", later), secure.ErrTokenSignature},
			{"missing", nil, secure.ErrTokenRequired},
		} {
			if _, err := tr.join(player, tc.tok, "ranked-1", false); !errors.Is(err, tc.want) || !errors.Is(err, secure.ErrRefused) {
				t.Errorf("%s: dial error %v, want %v", tc.name, err, tc.want)
			}
		}
		// A token is bound to its player's key too.
		if _, err := tr.join(seededKey(5), tr.token(tr.matchmaker, player, "ranked-1", later), "ranked-1", false); err == nil {
			t.Error("a token was accepted from another player's key")
		}
		st := tr.l.Stats().Handshake
		if st.Refused[secure.RefuseTokenExpired] != 1 || st.Refused[secure.RefuseTokenSignature] != 1 || st.Refused[secure.RefuseTokenRequired] != 1 {
			t.Errorf("handshake refusals %v", st.Refused)
		}
		if tr := tr.srv.Stats().TokenRefusals; tr["wrong_room"] != 1 || tr["missing"] != 0 {
			t.Errorf("token refusals %v", tr)
		}
	})
}

// TestConnectTokenPlaintextRefused: a server that requires tokens refuses
// a connection that carries none, such as a plaintext one.
func TestConnectTokenPlaintextRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, server.Config{RequireToken: true})
		defer h.close()
		_, m := h.join("ranked-1", 2)
		wantRefused(t, m, join.RefuseToken)
		if tr := h.srv.Stats().TokenRefusals; tr["missing"] != 1 {
			t.Errorf("token refusals %v", tr)
		}
	})
}
