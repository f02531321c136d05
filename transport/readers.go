package transport

import (
	"context"
	"net"
)

// Sockets says how ListenUDPReaders opens its sockets. The zero value is
// one socket with the system's default kernel buffers.
type Sockets struct {
	// Readers is the number of sockets bound to the address (SO_REUSEPORT
	// on Linux), each read by its own goroutine; 0 or 1 is one socket.
	Readers int
	// Buffer is the kernel buffer size, in bytes, asked for every socket
	// in each direction (SO_RCVBUF, SO_SNDBUF); 0 keeps the system's
	// default. The kernel caps it (net.core.rmem_max and wmem_max on
	// Linux); a smaller buffer still works, so a capped request is no
	// error.
	Buffer int
}

// ListenUDPReaders listens on a UDP address such as ":7777" with
// s.Readers sockets bound to the same address, each read by its own
// goroutine into its own connection table: the kernel sends all of one
// peer's datagrams to the same socket (it hashes the address pair), so
// the tables are shards that never share a connection, and n readers
// decode on up to n cores. The sockets share the Listener's
// configuration, security and Accept queue, and each gets s.Buffer.
// MaxConnections bounds each reader's table; the secure handshake's
// admission limits (Security) bound the whole listener. A platform
// without SO_REUSEPORT gets one socket.
func ListenUDPReaders(ctx context.Context, addr string, s Sockets, cfg Config) (*Listener, error) {
	n := s.Readers
	var lc net.ListenConfig
	if n > 1 && reusePortSupported {
		lc.Control = reusePort
	} else {
		n = 1
	}
	first, err := s.listen(ctx, &lc, addr)
	if err != nil {
		return nil, err
	}
	l, err := Listen(ctx, first, cfg)
	if err != nil {
		first.Close()
		return nil, err
	}
	bound := first.LocalAddr().String() // the port, if addr asked for any
	for range n - 1 {
		pc, err := s.listen(ctx, &lc, bound)
		if err == nil {
			err = l.Serve(pc)
			if err != nil {
				pc.Close()
			}
		}
		if err != nil {
			l.Close()
			return nil, err
		}
	}
	return l, nil
}

// listen opens one socket with the buffers asked for.
func (s Sockets) listen(ctx context.Context, lc *net.ListenConfig, addr string) (net.PacketConn, error) {
	pc, err := lc.ListenPacket(ctx, "udp", addr)
	if err != nil {
		return nil, err
	}
	if u, ok := pc.(*net.UDPConn); ok && s.Buffer > 0 {
		// Best effort: the kernel caps the request, and a smaller buffer
		// still works.
		_ = u.SetReadBuffer(s.Buffer)
		_ = u.SetWriteBuffer(s.Buffer)
	}
	return pc, nil
}

// ConnectionsPerSocket returns the open connections of each of the
// listener's sockets, in the order they were added: how the kernel
// spread the peers over ListenUDPReaders' readers.
func (l *Listener) ConnectionsPerSocket() []int {
	l.mu.Lock()
	eps := append([]*endpoint(nil), l.eps...)
	l.mu.Unlock()
	n := make([]int, len(eps))
	for i, ep := range eps {
		ep.mu.Lock()
		n[i] = len(ep.conns)
		ep.mu.Unlock()
	}
	return n
}
