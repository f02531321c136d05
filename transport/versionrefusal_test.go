package transport

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/internal/loopback"
	"github.com/tickwire/tickwire/secure"
)

// TestVersionRefusalGolden pins this version's refusal byte for byte.
func TestVersionRefusalGolden(t *testing.T) {
	got := appendVersionRefusal(nil, 0x01020304)
	want := []byte{DatagramVersion, 0xFF, 1, 2, 3, 4, 0, HelloVersion}
	if !bytes.Equal(got, want) {
		t.Fatalf("refusal % x, want % x", got, want)
	}
	if v, hello, id, ok := parseVersionRefusal(got); !ok || v != DatagramVersion || hello != HelloVersion || id != 0x01020304 {
		t.Fatalf("parsed %d %d %#x %v", v, hello, id, ok)
	}
}

// otherVersionPeer answers every datagram of this version as a plaintext
// server of datagram version 3 would under the refusal rule.
func otherVersionPeer(t *testing.T) string {
	return loopback.Responder(t, func(b []byte) []byte {
		if len(b) < headerMinLen || b[0] != DatagramVersion {
			return nil
		}
		return append([]byte{3, 0xFF}, append(b[2:6:6], 0, 1)...)
	})
}

// TestPlaintextDialNamesOtherVersion: a plaintext Dial to a server of
// another datagram version fails at once with secure.ErrVersion (and
// ErrHandshake) naming both versions, as the secure handshake does; the
// handshake timeout is longer than the test's context, so only the
// refusal can end the dial with that error.
func TestPlaintextDialNamesOtherVersion(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err := DialUDP(ctx, otherVersionPeer(t), Config{HandshakeTimeout: time.Hour})
	if !errors.Is(err, secure.ErrVersion) || !errors.Is(err, ErrHandshake) ||
		!strings.Contains(err.Error(), "the server speaks datagram version 3 (hello 1), this client 2 (hello 1)") {
		t.Fatalf("dial: %v, want ErrVersion naming both versions", err)
	}
}

// TestListenerRefusesOtherVersions: a plaintext listener answers a
// datagram of another version with its refusal, echoing the connection
// id, and nothing larger than what it answers; it stays silent to a
// refusal, to a datagram shorter than a header and to a secure Hello.
func TestListenerRefusesOtherVersions(t *testing.T) {
	ln, err := ListenUDP(t.Context(), "127.0.0.1:0", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	send := func(b []byte) {
		t.Helper()
		if _, err := pc.WriteTo(b, ln.Addr()); err != nil {
			t.Fatal(err)
		}
	}
	silent := [][]byte{
		{3, 0xFF, 9, 9, 9, 9, 0, 1},                                  // a refusal
		{3, 0, 9, 9, 9, 9, 0, 0, 0},                                  // shorter than a header
		append([]byte{0xE1, 2}, make([]byte, secure.HelloSize-2)...), // a secure Hello
	}
	for _, b := range silent {
		send(b)
	}
	send([]byte{3, 0, 0xA, 0xB, 0xC, 0xD, 0, 0, 0, 1, 42}) // version 3, connection 0A0B0C0D
	buf := make([]byte, 64)
	pc.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, _, err := pc.ReadFrom(buf)
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{DatagramVersion, 0xFF, 0xA, 0xB, 0xC, 0xD, 0, HelloVersion}; !bytes.Equal(buf[:n], want) {
		t.Fatalf("answer % x, want the refusal % x (the silent datagrams drew an answer?)", buf[:n], want)
	}
}
