package transportbench

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/tickwire/tickwire/transport"
)

// Tickwire is the Peer of tickwire's own transport: one channel per lane,
// with the lane's reliability and priority, no compression (the workload
// payloads are random, and the peers do not compress either), and W4's
// cap as its bandwidth budget. Within the budget, Critical data keeps a
// 5% reserve (a 60 Hz input stream needs under 1%) and Bulk may use the
// other 95%; the Bulk channel accepts at most 256 KiB unacknowledged (a
// quarter second at W4's cap), so that Send blocks like a stream peer's
// flow-controlled write instead of queueing seconds of data. Congestion
// selects the congestion controller (the zero value is the default).
type Tickwire struct{ Congestion transport.CongestionControl }

// laneChannel maps a lane to its channel id (lane + 1; 0 is reserved).
func laneChannel(l Lane) transport.ChannelID { return transport.ChannelID(l) + 1 }

func (t Tickwire) config(o Options) transport.Config {
	return transport.Config{
		Channels: []transport.ChannelConfig{
			{ID: laneChannel(Ordered), Name: "ordered", Reliability: transport.ReliableOrdered,
				AllowFragmentation: true, MaxMessageSize: MaxMessageSize},
			{ID: laneChannel(Unreliable), Name: "unreliable", Reliability: transport.Unreliable},
			{ID: laneChannel(Critical), Name: "critical", Reliability: transport.ReliableOrdered,
				Priority: transport.Critical},
			{ID: laneChannel(Bulk), Name: "bulk", Reliability: transport.ReliableOrdered,
				Priority: transport.Bulk, AllowFragmentation: true, MaxUnackedBytes: 256 << 10},
		},
		MTU:               o.MTU,
		MaxMessageSize:    MaxMessageSize,
		KeepAliveInterval: o.Keepalive,
		Bandwidth:         transport.BandwidthBudget{MaxBytesPerSecond: int(o.Bandwidth), CriticalReserve: 0.05, BulkMaxFraction: 0.95},
		CongestionControl: t.Congestion,
	}
}

func (a Tickwire) Listen(ctx context.Context, pc net.PacketConn, o Options) (Listener, error) {
	l, err := transport.Listen(ctx, pc, a.config(o))
	if err != nil {
		pc.Close()
		return nil, err
	}
	return tickwireListener{l: l, pc: pc}, nil
}

func (a Tickwire) Dial(ctx context.Context, pc net.PacketConn, remote net.Addr, o Options) (Conn, error) {
	c, err := transport.Dial(ctx, pc, remote, a.config(o))
	if err != nil {
		pc.Close()
		return nil, err
	}
	return tickwireConn{c: c, pc: pc}, nil
}

type tickwireListener struct {
	l  *transport.Listener
	pc net.PacketConn
}

func (l tickwireListener) Accept(ctx context.Context) (Conn, error) {
	c, err := l.l.Accept(ctx)
	if err != nil {
		return nil, err
	}
	return tickwireConn{c: c}, nil
}

func (l tickwireListener) Close() error {
	err := l.l.Close()
	l.pc.Close()
	return err
}

type tickwireConn struct {
	c  *transport.Conn
	pc net.PacketConn // the client's socket; nil on the server side
}

// Send queues msg; a full reliable channel is retried every millisecond,
// so Send blocks like the stream-based peers' writes do.
func (t tickwireConn) Send(lane Lane, msg []byte) error {
	for {
		err := t.c.Send(laneChannel(lane), msg)
		if !errors.Is(err, transport.ErrBackpressure) {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}

func (t tickwireConn) Receive(ctx context.Context) ([]byte, error) {
	m, err := t.c.Receive(ctx)
	return m.Data, err
}

// Stats reports the connection's figures (see Figures).
func (t tickwireConn) Stats() transport.Stats { return t.c.Stats() }

func (t tickwireConn) Close() error {
	err := t.c.Close()
	if t.pc != nil {
		t.pc.Close()
	}
	return err
}
