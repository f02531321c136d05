package transport

import (
	"fmt"
	"net"
	"os"
	"sync"
	"time"
)

// MemoryNetwork is an in-memory datagram network for tests: its
// PacketConns deliver to each other by name, drop datagrams when a
// receiver's queue is full, and work under testing/synctest.
type MemoryNetwork struct {
	mu    sync.Mutex
	conns map[string]*memConn
	next  int
}

// NewMemoryNetwork returns an empty network.
func NewMemoryNetwork() *MemoryNetwork {
	return &MemoryNetwork{conns: make(map[string]*memConn)}
}

// memQueue is the number of datagrams a memory socket buffers.
const memQueue = 4096

// MemoryAddr is the address of a memory socket.
type MemoryAddr string

func (a MemoryAddr) Network() string { return "memory" }
func (a MemoryAddr) String() string  { return string(a) }

// ListenPacket returns a socket with the given name, or a fresh name if
// name is empty.
func (n *MemoryNetwork) ListenPacket(name string) (net.PacketConn, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if name == "" {
		n.next++
		name = fmt.Sprintf("mem-%d", n.next)
	}
	if _, ok := n.conns[name]; ok {
		return nil, fmt.Errorf("transport: memory address %q in use", name)
	}
	c := &memConn{net: n, addr: MemoryAddr(name), in: make(chan memPacket, memQueue), closed: make(chan struct{})}
	n.conns[name] = c
	return c, nil
}

type memPacket struct {
	from MemoryAddr
	data []byte
}

type memConn struct {
	net    *MemoryNetwork
	addr   MemoryAddr
	in     chan memPacket
	closed chan struct{}
	once   sync.Once

	mu       sync.Mutex
	deadline time.Time
}

func (c *memConn) ReadFrom(b []byte) (int, net.Addr, error) {
	c.mu.Lock()
	dl := c.deadline
	c.mu.Unlock()
	var timeout <-chan time.Time
	if !dl.IsZero() {
		t := time.NewTimer(time.Until(dl))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case p := <-c.in:
		return copy(b, p.data), p.from, nil
	case <-c.closed:
		return 0, nil, net.ErrClosed
	case <-timeout:
		return 0, nil, os.ErrDeadlineExceeded
	}
}

func (c *memConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	select {
	case <-c.closed:
		return 0, net.ErrClosed
	default:
	}
	c.net.mu.Lock()
	dst := c.net.conns[addr.String()]
	c.net.mu.Unlock()
	if dst != nil {
		select {
		case dst.in <- memPacket{from: c.addr, data: append([]byte(nil), b...)}:
		default: // queue full: dropped, as UDP would
		}
	}
	return len(b), nil
}

func (c *memConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		c.net.mu.Lock()
		delete(c.net.conns, string(c.addr))
		c.net.mu.Unlock()
	})
	return nil
}

func (c *memConn) LocalAddr() net.Addr { return c.addr }

func (c *memConn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

func (c *memConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return nil
}

func (c *memConn) SetWriteDeadline(time.Time) error { return nil }
