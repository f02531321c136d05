package transport

import (
	"context"
	"net"
)

// ListenUDPReaders listens on a UDP address such as ":7777" with n
// sockets bound to the same address (SO_REUSEPORT on Linux), each read by
// its own goroutine into its own connection table: the kernel sends all
// of one peer's datagrams to the same socket (it hashes the address
// pair), so the tables are shards that never share a connection, and n
// readers decode on up to n cores. The sockets share the Listener's
// configuration, security and Accept queue. MaxConnections bounds each
// reader's table; the secure handshake's admission limits (Security)
// bound the whole listener. n ≤ 1, or a platform without SO_REUSEPORT,
// gives ListenUDP's one socket.
func ListenUDPReaders(ctx context.Context, addr string, n int, cfg Config) (*Listener, error) {
	if n <= 1 || !reusePortSupported {
		return ListenUDP(ctx, addr, cfg)
	}
	lc := net.ListenConfig{Control: reusePort}
	first, err := lc.ListenPacket(ctx, "udp", addr)
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
		pc, err := lc.ListenPacket(ctx, "udp", bound)
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
