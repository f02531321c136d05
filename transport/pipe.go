package transport

import (
	"context"

	"github.com/tickwire/tickwire/netsim"
)

// Pipe returns two connected connections over an in-memory network, for
// tests and single-process setups: client dialed server, both with cfg.
// It works inside testing/synctest bubbles. Closing either connection ends
// both sockets' use; close both.
func Pipe(ctx context.Context, cfg Config) (client, server *Conn, err error) {
	mn := netsim.NewMemNetwork()
	a, err := mn.ListenPacket("")
	if err != nil {
		return nil, nil, err
	}
	b, err := mn.ListenPacket("")
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	l, err := Listen(ctx, b, cfg)
	if err != nil {
		a.Close()
		b.Close()
		return nil, nil, err
	}
	accepted := make(chan error, 1)
	go func() {
		var aerr error
		server, aerr = l.Accept(ctx)
		accepted <- aerr
	}()
	client, err = Dial(ctx, a, b.LocalAddr(), cfg)
	if err != nil {
		l.Close()
		<-accepted
		return nil, nil, err
	}
	if err := <-accepted; err != nil {
		client.Close()
		l.Close()
		return nil, nil, err
	}
	server.ownsListener = l
	return client, server, nil
}
