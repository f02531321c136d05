package secure

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestHandshakeThenDataBothWays(t *testing.T) {
	s := newServer(t, ServerConfig{})
	c := newClient(t, ClientConfig{ServerKey: s.PublicKey()}, 1)
	a := handshake(t, c, s, clientAddr, t0)

	clientPub := key(t, 2).Public().(ed25519.PublicKey)
	if !a.Peer().Key.Equal(clientPub) || a.Peer().Token != nil {
		t.Fatalf("server sees peer %x token %v", a.Peer().Key, a.Peer().Token)
	}
	if !c.ServerKey().Equal(s.PublicKey()) {
		t.Fatal("client did not learn the server key")
	}
	cs := c.Session()
	open := func(dst []byte, seq uint32, h, p []byte) ([]byte, error) { return a.Open(dst, seq, h, p, t0) }
	for seq := range uint32(50) {
		exchange(t, cs.Seal, open, seq, fmt.Sprintf("c→s %d", seq))
		exchange(t, a.Seal, cs.Open, 1000+seq, fmt.Sprintf("s→c %d", seq))
	}
	if st := s.Stats(); st.Established != 1 || st.Accepted != 1 || st.Admission.Open != 1 {
		t.Fatalf("server stats %+v", st)
	}
}

func TestHandshakeIsDeterministic(t *testing.T) {
	var runs [2][]byte
	for i := range runs {
		s := newServer(t, ServerConfig{})
		c := newClient(t, ClientConfig{}, 7)
		a := handshake(t, c, s, clientAddr, t0)
		sealed, err := a.Seal(nil, 1, testHeader(1), []byte("same bytes"))
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = append(c.Packet(), sealed...)
	}
	if !bytes.Equal(runs[0], runs[1]) {
		t.Fatal("seeded handshakes differ")
	}
}

func TestPacketSizes(t *testing.T) {
	s := newServer(t, ServerConfig{})
	c := newClient(t, ClientConfig{}, 1)
	hello := c.Packet()
	ch, _ := s.HandleUnvalidated(hello, clientAddr, t0)
	in, _ := c.Handle(ch)
	u, sh, err := s.Accept(in, clientAddr, t0)
	if err != nil {
		t.Fatal(err)
	}
	fin, _ := c.Handle(sh)
	if _, err := u.Finish(fin, t0); err != nil {
		t.Fatal(err)
	}
	refuse := appendRefuse(nil, &c.nonce, RefuseServerFull)
	packets := [][]byte{hello, ch, in, sh, fin, refuse}
	var sizes []int
	for i, p := range packets {
		sizes = append(sizes, len(p))
		if k := Classify(p); k != Kind(i+1) {
			t.Errorf("packet %d classified %v", i, k)
		}
	}
	want := []int{HelloSize, ChallengeSize, InitiateSize, ServerHelloSize, FinishSize, RefuseSize}
	if fmt.Sprint(sizes) != fmt.Sprint(want) || fmt.Sprint(want) != "[64 34 251 162 130 19]" {
		t.Fatalf("sizes %v, constants %v, documented [64 34 251 162 130 19]", sizes, want)
	}
}

func TestWrongPinnedKeyFails(t *testing.T) {
	s := newServer(t, ServerConfig{})
	other := key(t, 9).Public().(ed25519.PublicKey)
	c := newClient(t, ClientConfig{ServerKey: other}, 1)
	ch, _ := s.HandleUnvalidated(c.Packet(), clientAddr, t0)
	in, _ := c.Handle(ch)
	_, sh, err := s.Accept(in, clientAddr, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Handle(sh); !errors.Is(err, ErrServerKeyMismatch) {
		t.Fatalf("got %v, want ErrServerKeyMismatch", err)
	}
	if c.Session() != nil || !errors.Is(c.Err(), ErrServerKeyMismatch) {
		t.Fatal("handshake went on after the mismatch")
	}
	if _, err := c.Handle(sh); !errors.Is(err, ErrServerKeyMismatch) {
		t.Fatalf("failed handshake answered %v", err)
	}
}

// A man in the middle who answers with its own ephemeral key and identity
// completes the DH with the client, but fails the pin.
func TestMITMFailsThePin(t *testing.T) {
	real := newServer(t, ServerConfig{})
	mitm := newServer(t, ServerConfig{Identity: key(t, 66)})
	c := newClient(t, ClientConfig{ServerKey: real.PublicKey()}, 1)
	ch, _ := mitm.HandleUnvalidated(c.Packet(), clientAddr, t0)
	in, _ := c.Handle(ch)
	_, sh, err := mitm.Accept(in, clientAddr, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Handle(sh); !errors.Is(err, ErrServerKeyMismatch) {
		t.Fatalf("got %v", err)
	}
}

// Every single-byte change of a ServerHello is ignored by the client
// (malformed, unexpected or failing authentication), and the genuine one
// still completes the handshake afterwards.
func TestTamperedServerHelloIsIgnored(t *testing.T) {
	s := newServer(t, ServerConfig{})
	c := newClient(t, ClientConfig{ServerKey: s.PublicKey()}, 1)
	ch, _ := s.HandleUnvalidated(c.Packet(), clientAddr, t0)
	in, _ := c.Handle(ch)
	u, sh, err := s.Accept(in, clientAddr, t0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sh {
		bad := bytes.Clone(sh)
		bad[i] ^= 0x20
		if _, err := c.Handle(bad); !errors.Is(err, ErrAuth) && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnexpected) {
			t.Fatalf("byte %d: %v", i, err)
		}
	}
	fin, err := c.Handle(sh)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fin {
		bad := bytes.Clone(fin)
		bad[i] ^= 0x01
		if _, err := u.Finish(bad, t0); err == nil || fatal(err) {
			t.Fatalf("tampered finish byte %d: %v", i, err)
		}
	}
	if _, err := u.Finish(fin, t0); err != nil {
		t.Fatal(err)
	}
}

// A Finish from another handshake (valid, but for another transcript) does
// not open.
func TestFinishFromAnotherHandshake(t *testing.T) {
	s := newServer(t, ServerConfig{})
	c1, c2 := newClient(t, ClientConfig{}, 1), newClient(t, ClientConfig{}, 2)
	a1, a2 := clientAddr, clientAddr
	a2 = netipWithPort(a2, 40001)
	ch1, _ := s.HandleUnvalidated(c1.Packet(), a1, t0)
	ch2, _ := s.HandleUnvalidated(c2.Packet(), a2, t0)
	in1, _ := c1.Handle(ch1)
	in2, _ := c2.Handle(ch2)
	u1, sh1, _ := s.Accept(in1, a1, t0)
	_, sh2, _ := s.Accept(in2, a2, t0)
	c1.Handle(sh1)
	fin2, _ := c2.Handle(sh2)
	if _, err := u1.Finish(fin2, t0); !errors.Is(err, ErrUnexpected) {
		t.Fatalf("foreign finish: %v", err)
	}
	// Same nonce, other transcript: graft c2's sealed part onto c1's head.
	forged := append(bytes.Clone(c1.Packet()[:headSize]), fin2[headSize:]...)
	if _, err := u1.Finish(forged, t0); !errors.Is(err, ErrAuth) {
		t.Fatalf("grafted finish: %v", err)
	}
}

func TestInitiateRetransmitGetsSameServerHello(t *testing.T) {
	s := newServer(t, ServerConfig{})
	c := newClient(t, ClientConfig{}, 1)
	ch, _ := s.HandleUnvalidated(c.Packet(), clientAddr, t0)
	in, _ := c.Handle(ch)
	u, sh, err := s.Accept(in, clientAddr, t0)
	if err != nil {
		t.Fatal(err)
	}
	again, ok := u.Resend(c.Packet())
	if !ok || !bytes.Equal(again, sh) || len(again) > len(in) {
		t.Fatal("retransmitted initiate not answered with the same, smaller server hello")
	}
	other := bytes.Clone(in)
	other[40] ^= 1
	if _, ok := u.Resend(other); ok {
		t.Fatal("different initiate answered")
	}
	if st := s.Stats(); st.Accepted != 1 || st.Admission.Open != 1 {
		t.Fatalf("retransmit created state: %+v", st)
	}
}

func TestStrayPacketsDoNotDisturbClient(t *testing.T) {
	s := newServer(t, ServerConfig{})
	c := newClient(t, ClientConfig{}, 1)
	other := newClient(t, ClientConfig{}, 2)
	otherCh, _ := s.HandleUnvalidated(other.Packet(), clientAddr, t0)
	if _, err := c.Handle(otherCh); !errors.Is(err, ErrUnexpected) {
		t.Fatalf("challenge for another nonce: %v", err)
	}
	refuse := appendRefuse(nil, &other.nonce, RefuseServerFull)
	if _, err := c.Handle(refuse); !errors.Is(err, ErrUnexpected) {
		t.Fatalf("refuse for another nonce: %v", err)
	}
	if _, err := c.Handle([]byte("garbage")); !errors.Is(err, ErrMalformed) {
		t.Fatalf("garbage: %v", err)
	}
	handshake(t, c, s, clientAddr, t0)
}

// TestVersionMismatchIsNamed: a server refuses a Hello of another
// version with a Refuse of its own (RefuseVersion, the client's nonce),
// and a client that gets a Refuse of another version fails with
// ErrRefused and ErrVersion, naming both versions. The exchange between
// two peers of this version is untouched (the golden tests).
func TestVersionMismatchIsNamed(t *testing.T) {
	s := newServer(t, ServerConfig{})
	for _, v := range []byte{2, 0x7f, 0xff} {
		hello := newClient(t, ClientConfig{}, 1).Packet()
		hello[1] = v
		hello[HelloSize-1] = 0xAB // a later version may use the padding
		reply, ok := s.HandleUnvalidated(hello, clientAddr, t0)
		if !ok || len(reply) != RefuseSize || Classify(reply) != KindRefuse || reply[1] != Version ||
			!bytes.Equal(reply[2:headSize], hello[2:headSize]) || RefusalReason(reply[headSize]) != RefuseVersion {
			t.Fatalf("hello of version %d: reply % x", v, reply)
		}
	}
	if st := s.Stats(); st.Refused[RefuseVersion] != 3 {
		t.Errorf("server counted %d version refusals, want 3", st.Refused[RefuseVersion])
	}

	// A client of this version and a server of version 2.
	for _, reason := range []RefusalReason{RefuseVersion, RefuseServerFull} {
		c := newClient(t, ClientConfig{}, 2)
		var nonce [NonceSize]byte
		copy(nonce[:], c.Packet()[2:headSize])
		refuse := appendRefuse(nil, &nonce, reason)
		refuse[1] = 2
		_, err := c.Handle(refuse)
		if !errors.Is(err, ErrVersion) || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "version 2, this client 1") {
			t.Fatalf("refuse of version 2 (reason %d): %v", reason, err)
		}
	}
	c := newClient(t, ClientConfig{}, 3)
	// A Refuse of another version with a stranger's nonce is ignored.
	stray := appendRefuse(nil, new([NonceSize]byte), RefuseVersion)
	stray[1] = 2
	if _, err := c.Handle(stray); !errors.Is(err, ErrUnexpected) || c.Err() != nil {
		t.Fatalf("stray refuse of another version: %v, handshake %v", err, c.Err())
	}
}
