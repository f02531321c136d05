package secure

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"testing"
	"time"
)

const playerID = 4242

func issue(t *testing.T, server, player ed25519.PublicKey, expires time.Time) []byte {
	t.Helper()
	tok, err := IssueToken(key(t, 50), Token{Server: server, Player: player, PlayerID: playerID, Expires: expires, Nonce: [8]byte{7}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tok) != TokenSize {
		t.Fatalf("token of %d bytes", len(tok))
	}
	return tok
}

func matchmaker(t *testing.T) ed25519.PublicKey { return key(t, 50).Public().(ed25519.PublicKey) }

func playerKey(t *testing.T) ed25519.PublicKey { return key(t, 2).Public().(ed25519.PublicKey) }

func TestTokenAdmitsMatchedPlayer(t *testing.T) {
	s := newServer(t, ServerConfig{Matchmaker: matchmaker(t)})
	tok := issue(t, s.PublicKey(), playerKey(t), t0.Add(time.Minute))
	a := handshake(t, newClient(t, ClientConfig{Token: tok}, 1), s, clientAddr, t0)
	p := a.Peer()
	if p.Token == nil || p.Token.PlayerID != playerID || !p.Token.Player.Equal(p.Key) || !p.Token.Expires.Equal(t0.Add(time.Minute)) {
		t.Fatalf("peer %+v", p)
	}
}

// refusedWith runs a handshake that the server must refuse at the
// Initiate and checks the error on both sides and the refusal's size.
func refusedWith(t *testing.T, s *Server, c *ClientHandshake, now time.Time, want error) {
	t.Helper()
	before := s.Stats()
	ch, _ := s.HandleUnvalidated(c.Packet(), clientAddr, now)
	in, err := c.Handle(ch)
	if err != nil {
		t.Fatal(err)
	}
	_, reply, err := s.Accept(in, clientAddr, now)
	if !errors.Is(err, want) {
		t.Fatalf("server: %v, want %v", err, want)
	}
	if len(reply) != RefuseSize || len(reply) > len(in) {
		t.Fatalf("refusal of %d bytes for a %d-byte request", len(reply), len(in))
	}
	if _, err := c.Handle(reply); !errorsIs(err, ErrRefused, want) {
		t.Fatalf("client: %v, want %v", err, want)
	}
	if st := s.Stats(); st.Refused[reasonFor(want)] != 1 || st.Admission.Open != before.Admission.Open {
		t.Fatalf("stats %+v", st)
	}
}

func TestTokenRefusals(t *testing.T) {
	mm := matchmaker(t)
	srv := key(t, 1).Public().(ed25519.PublicKey)
	other := key(t, 3).Public().(ed25519.PublicKey)
	valid := issue(t, srv, playerKey(t), t0.Add(time.Minute))
	forged := append([]byte(nil), valid...)
	forged[64] ^= 1 // player id changed after signing
	cases := []struct {
		name  string
		token []byte
		now   time.Time
		want  error
	}{
		{"expired", issue(t, srv, playerKey(t), t0.Add(-time.Second)), t0, ErrTokenExpired},
		{"expires now", valid, t0.Add(time.Minute), ErrTokenExpired},
		{"wrong server", issue(t, other, playerKey(t), t0.Add(time.Minute)), t0, ErrTokenWrongServer},
		{"forged", forged, t0, ErrTokenSignature},
		{"missing", nil, t0, ErrTokenRequired},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, ServerConfig{Matchmaker: mm})
			refusedWith(t, s, newClient(t, ClientConfig{Token: tc.token}, 1), tc.now, tc.want)
		})
	}
}

// A token stolen by another player is useless: the Finish must be signed
// by the key the token names.
func TestTokenForAnotherPlayer(t *testing.T) {
	s := newServer(t, ServerConfig{Matchmaker: matchmaker(t)})
	tok := issue(t, s.PublicKey(), key(t, 77).Public().(ed25519.PublicKey), t0.Add(time.Minute))
	c := newClient(t, ClientConfig{Token: tok}, 1)
	ch, _ := s.HandleUnvalidated(c.Packet(), clientAddr, t0)
	in, _ := c.Handle(ch)
	u, sh, err := s.Accept(in, clientAddr, t0)
	if err != nil {
		t.Fatal(err)
	}
	fin, _ := c.Handle(sh)
	if _, err := u.Finish(fin, t0); !errors.Is(err, ErrTokenWrongPlayer) {
		t.Fatalf("got %v", err)
	}
	if err := u.Check(); !errors.Is(err, ErrClosed) {
		t.Fatalf("connection not closed: %v", err)
	}
	if st := s.Stats(); st.Failed != 1 || st.Admission.Open != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestVerifyToken(t *testing.T) {
	srv := key(t, 1).Public().(ed25519.PublicKey)
	tok := issue(t, srv, playerKey(t), t0.Add(time.Hour))
	if _, err := VerifyToken(tok, matchmaker(t), srv, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyToken(tok, key(t, 51).Public().(ed25519.PublicKey), srv, t0); !errors.Is(err, ErrTokenSignature) {
		t.Fatalf("other matchmaker: %v", err)
	}
	if _, err := VerifyToken(tok[:TokenSize-1], matchmaker(t), srv, t0); !errors.Is(err, ErrTokenSignature) {
		t.Fatalf("short token: %v", err)
	}
}

// goldenToken is the token of TestTokenGolden, byte for byte: server key
// of seed 1, player key of seed 2, room "ranked-1", player id 4242,
// expiry t0 + 1 min, nonce 07 00 …, signed by the matchmaker of seed 50.
const goldenToken = "cecc1507dc1ddd7295951c290888f095adb9044d1b73d696e6df065d683bd4fc" +
	"6b79c57e6a095239282c04818e96112f3f03a4001ba97a564c23852a3f1ea5fc" +
	"fc01dc27f9170d47ddc5a9bbe08318c6dc5b003c004040260e87eb2764723dfa" +
	"00000000000010920000000070dd556107000000000000006270e3380189575e" +
	"a9ded6ddcf95cc1a2d540e9bbc24991e4eb18edc7ff3ba2b254b0db53479a9ec" +
	"9d831febb515d822be90b9c1606d23f23abd3bd27c736d00"

// TestTokenGolden pins the token layout of the package documentation.
func TestTokenGolden(t *testing.T) {
	srv := key(t, 1).Public().(ed25519.PublicKey)
	tok, err := IssueToken(key(t, 50), Token{Server: srv, Player: playerKey(t), Room: RoomID("ranked-1"), PlayerID: playerID,
		Expires: t0.Add(time.Minute), Nonce: [8]byte{7}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(tok); got != goldenToken {
		t.Fatalf("token\n got %s\nwant %s", got, goldenToken)
	}
	room := RoomID("ranked-1")
	switch {
	case !bytes.Equal(tok[0:32], srv), !bytes.Equal(tok[32:64], playerKey(t)), !bytes.Equal(tok[64:96], room[:]),
		binary.BigEndian.Uint64(tok[96:]) != playerID, int64(binary.BigEndian.Uint64(tok[104:])) != t0.Add(time.Minute).Unix(),
		tok[112] != 7:
		t.Fatal("fields not at their documented offsets")
	}
	if !ed25519.Verify(matchmaker(t), append([]byte("tickwire connect token v2\x00"), tok[:120]...), tok[120:]) {
		t.Fatal("signature not over the documented bytes")
	}
	v, err := VerifyToken(tok, matchmaker(t), srv, t0)
	if err != nil || !v.ForRoom("ranked-1") || v.ForRoom("ranked-2") || v.Room != room {
		t.Fatalf("verified %+v, %v", v, err)
	}
}
