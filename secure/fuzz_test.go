package secure

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"net/netip"
	"testing"
	"time"
)

// realPackets returns one of each handshake packet from a real handshake
// with a connect token.
func realPackets(t testing.TB) [][]byte {
	mm := key(t, 50)
	s := newServer(t, ServerConfig{Matchmaker: mm.Public().(ed25519.PublicKey)})
	tok, err := IssueToken(mm, Token{Server: s.PublicKey(), Player: key(t, 2).Public().(ed25519.PublicKey), PlayerID: 1, Expires: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, ClientConfig{Token: tok}, 1)
	hello := c.Packet()
	ch, _ := s.HandleUnvalidated(hello, clientAddr, t0)
	in, _ := c.Handle(ch)
	_, sh, _ := s.Accept(in, clientAddr, t0)
	fin, _ := c.Handle(sh)
	// A Hello of another version and the server's answer, and a Refuse
	// of another version (a version 2 server's).
	otherHello := bytes.Clone(hello)
	otherHello[1] = 2
	versionRefuse, _ := s.HandleUnvalidated(otherHello, clientAddr, t0)
	otherRefuse := bytes.Clone(versionRefuse)
	otherRefuse[1] = 2
	return [][]byte{hello, ch, in, sh, fin, appendRefuse(nil, &c.nonce, RefuseTokenExpired), otherHello, versionRefuse, otherRefuse}
}

// FuzzHandshakePackets feeds arbitrary packets to the parsers and to both
// handshake state machines in every state. Nothing panics, a packet that
// parses re-encodes to itself, and the server never answers an
// unvalidated source with more bytes than it sent.
func FuzzHandshakePackets(f *testing.F) {
	for _, p := range realPackets(f) {
		f.Add(p)
		f.Add(p[:len(p)-1])
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, pkt []byte) {
		checkRoundTrip(t, pkt)

		// From another address than the seeds', so even a real Initiate
		// carries a cookie for someone else.
		spoofed := netip.MustParseAddrPort("198.51.100.7:9")
		s := newServer(t, ServerConfig{})
		if reply, _ := s.HandleUnvalidated(pkt, spoofed, t0); len(reply) > len(pkt) {
			t.Fatalf("answered %d bytes with %d", len(pkt), len(reply))
		}
		if _, reply, err := s.Accept(pkt, spoofed, t0); err == nil || len(reply) > len(pkt) {
			t.Fatalf("accepted a forged initiate: %v, %d bytes", err, len(reply))
		}
		if st := s.Stats(); st.UnvalidatedOut > st.UnvalidatedIn || st.Admission.TrackedIPs != 0 {
			t.Fatalf("stats %+v", st)
		}

		// The client in each state, and the server connection awaiting Finish.
		c := newClient(t, ClientConfig{}, 1)
		c.Handle(pkt)
		c = newClient(t, ClientConfig{}, 1)
		ch, _ := s.HandleUnvalidated(c.Packet(), clientAddr, t0)
		in, _ := c.Handle(ch)
		c.Handle(pkt)
		u, sh, err := s.Accept(in, clientAddr, t0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := u.Finish(pkt, t0); err == nil {
			t.Fatal("forged finish accepted")
		}
		if _, err := c.Handle(sh); err != nil && c.Err() == nil {
			t.Fatal(err) // only a genuine Refuse may have failed the client
		}
		c.Handle(pkt)
	})
}

func checkRoundTrip(t *testing.T, pkt []byte) {
	var again []byte
	switch Classify(pkt) {
	case KindHello:
		if n, err := parseHello(pkt); err == nil {
			again = appendHello(nil, &n)
		}
	case KindChallenge:
		if n, c, err := parseChallenge(pkt); err == nil {
			again = appendChallenge(nil, &n, &c)
		}
	case KindInitiate:
		if m, err := parseInitiate(pkt); err == nil {
			again = appendInitiate(nil, &m)
		}
	case KindRefuse:
		if n, r, err := parseRefuse(pkt); err == nil {
			again = appendRefuse(nil, &n, r)
		}
	case KindServerHello:
		n, eph, sealed, err := parseServerHello(pkt)
		if err != nil {
			t.Fatal(err)
		}
		again = append(appendServerHelloClear(nil, &n, eph[:]), sealed...)
	case KindFinish:
		n, sealed, err := parseFinish(pkt)
		if err != nil {
			t.Fatal(err)
		}
		again = append(appendHead(nil, KindFinish, &n), sealed...)
	}
	if again != nil && !bytes.Equal(again, pkt) {
		t.Fatalf("re-encoded %x as %x", pkt, again)
	}
}

// FuzzOpen feeds arbitrary (sequence, header, payload) triples to a
// session's Open. Nothing panics, and only the datagrams actually sealed
// by the peer open, each to its own plaintext.
func FuzzOpen(f *testing.F) {
	const rekey = 3 // exercise key phases
	genuine := map[string]string{}
	a, _ := sessions(rekey)
	for seq := range uint32(8) {
		msg := string(bytes.Repeat([]byte{byte('a' + seq)}, int(seq)*7))
		d := seal(f, a, seq*2, msg)
		genuine[fuzzKey(d.seq, d.header, d.sealed)] = msg
		f.Add(d.seq, d.header, d.sealed)
	}
	f.Add(uint32(0), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, seq uint32, header, sealed []byte) {
		_, b := sessions(rekey)
		out, err := b.Open(nil, seq, header, sealed)
		if err != nil {
			return
		}
		want, ok := genuine[fuzzKey(seq, header, sealed)]
		if !ok {
			t.Fatalf("forged datagram opened: seq %d header %x payload %x", seq, header, sealed)
		}
		if string(out) != want {
			t.Fatalf("opened %q, sealed %q", out, want)
		}
		if _, err := b.Open(nil, seq, header, sealed); err == nil {
			t.Fatal("replay opened")
		}
	})
}

func fuzzKey(seq uint32, header, sealed []byte) string {
	return string(binary.BigEndian.AppendUint32(nil, seq)) + string(header) + "|" + string(sealed)
}

// FuzzVerifyToken: arbitrary bytes never verify as a token.
func FuzzVerifyToken(f *testing.F) {
	srv := key(f, 1).Public().(ed25519.PublicKey)
	tok, err := IssueToken(key(f, 50), Token{Server: srv, Player: srv, PlayerID: 9, Expires: t0.Add(time.Hour)})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tok)
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := VerifyToken(b, key(t, 50).Public().(ed25519.PublicKey), srv, t0)
		if err == nil && !bytes.Equal(b, tok) {
			t.Fatalf("forged token verified: %x", b)
		}
	})
}
