package netsim

import (
	"errors"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"
)

func TestMemNetworkExchange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNetwork()
		a, err := n.ListenPacket("10.0.0.1:9000")
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b, err := n.ListenPacket("")
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if got := a.LocalAddr().String(); got != "10.0.0.1:9000" {
			t.Errorf("LocalAddr %q", got)
		}
		if _, ok := b.LocalAddr().(*net.UDPAddr); !ok {
			t.Errorf("LocalAddr is a %T, want *net.UDPAddr", b.LocalAddr())
		}
		msg := []byte("hello")
		if _, err := b.WriteTo(msg, a.LocalAddr()); err != nil {
			t.Fatal(err)
		}
		msg[0] = 'J' // the network holds a copy
		buf := make([]byte, 3)
		n1, from, err := a.ReadFrom(buf)
		if err != nil || string(buf[:n1]) != "hel" || from.String() != b.LocalAddr().String() {
			t.Errorf("read %q from %v, %v; want truncated \"hel\" from %v", buf[:n1], from, err, b.LocalAddr())
		}
		// Any net.Addr spelled ip:port reaches the endpoint.
		if _, err := b.WriteTo([]byte("x"), stringAddr("10.0.0.1:9000")); err != nil {
			t.Fatal(err)
		}
		if _, _, err := a.ReadFrom(buf); err != nil {
			t.Fatal(err)
		}
		// Nobody listens here: the packet vanishes without error.
		if _, err := b.WriteTo(msg, stringAddr("10.0.0.2:1")); err != nil {
			t.Errorf("write to nowhere: %v", err)
		}
		if _, err := b.WriteTo(msg, stringAddr("not an address")); err == nil {
			t.Error("write to a malformed address succeeded")
		}
	})
}

type stringAddr string

func (s stringAddr) Network() string { return "udp" }
func (s stringAddr) String() string  { return string(s) }

func TestMemNetworkAddresses(t *testing.T) {
	n := NewMemNetwork()
	a, err := n.ListenPacket("192.0.2.1:1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.ListenPacket("192.0.2.1:1"); !errors.Is(err, ErrAddrInUse) {
		t.Errorf("second listen on one address: %v, want ErrAddrInUse", err)
	}
	b, err := n.ListenPacket("") // skips the taken port 1
	if err != nil || b.LocalAddr().String() != "192.0.2.1:2" {
		t.Errorf("auto address %v, %v; want 192.0.2.1:2", b.LocalAddr(), err)
	}
	if _, err := n.ListenPacket("nonsense"); err == nil {
		t.Error("malformed address accepted")
	}
	a.Close()
	if _, err := n.ListenPacket("192.0.2.1:1"); err != nil {
		t.Errorf("address not freed by Close: %v", err)
	}
	if err := a.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
	if _, _, err := a.ReadFrom(nil); !errors.Is(err, net.ErrClosed) {
		t.Errorf("read after Close: %v", err)
	}
	if _, err := a.WriteTo(nil, b.LocalAddr()); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write after Close: %v", err)
	}
}

func TestMemConnQueueAndDeadlines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := NewMemNetwork()
		a, _ := n.ListenPacket("")
		b, _ := n.ListenPacket("")
		defer a.Close()
		defer b.Close()
		for i := range MemQueue + 10 {
			b.WriteTo(packet(i, 8), a.LocalAddr())
		}
		buf := make([]byte, 8)
		for range MemQueue {
			if _, _, err := a.ReadFrom(buf); err != nil {
				t.Fatal(err)
			}
		}
		start := time.Now()
		a.SetDeadline(start.Add(time.Second))
		if _, _, err := a.ReadFrom(buf); !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) != time.Second {
			t.Errorf("read of a drained queue: %v after %v, want a timeout after 1s (overflow dropped)", err, time.Since(start))
		}
		if _, err := a.WriteTo(buf, b.LocalAddr()); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("write after deadline: %v", err)
		}
		a.SetWriteDeadline(time.Time{})
		a.SetReadDeadline(time.Time{})
		if _, err := a.WriteTo(buf, b.LocalAddr()); err != nil {
			t.Errorf("write with deadline cleared: %v", err)
		}
		go func() {
			time.Sleep(time.Second)
			a.Close()
		}()
		if _, _, err := a.ReadFrom(buf); !errors.Is(err, net.ErrClosed) {
			t.Errorf("blocked read on Close: %v", err)
		}
	})
}
