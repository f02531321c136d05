// Package loopback gives tests loopback addresses with nothing behind
// them: a UDP port nothing listens on (a datagram sent there draws the
// kernel's ICMP port unreachable) and ports that were free a moment ago,
// for a server the test is about to start.
package loopback

import (
	"net"
	"testing"
)

// ClosedUDP returns a loopback UDP address nothing listens on: the port
// was bound and released, so it is free until something else takes it.
func ClosedUDP(t testing.TB) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	return pc.LocalAddr().String()
}

// FreeTCP returns a loopback TCP address whose port was free a moment ago.
func FreeTCP(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// Responder listens on a loopback UDP port until the test ends and
// answers each datagram with what answer returns for it (nothing for
// nil): a fake server that speaks only the first packets of a protocol.
// answer must not keep b.
func Responder(t testing.TB, answer func(b []byte) []byte) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if reply := answer(buf[:n]); reply != nil {
				pc.WriteTo(reply, from)
			}
		}
	}()
	return pc.LocalAddr().String()
}
