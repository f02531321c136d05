package main

import (
	"context"

	serverjoin "github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/host"
	ssmsg "github.com/tickwire/tickwire/statesync/msg"
	"github.com/tickwire/tickwire/transport"
)

// join asks the server on conn for a seat in the state-sync room named
// roomName of size players (server/join: the exchange every model shares),
// and returns the seat's client id.
func join(ctx context.Context, conn *transport.Conn, roomName string, size int) (uint32, error) {
	seat, err := serverjoin.Join(ctx, conn, serverjoin.Request{Room: roomName, RoomSize: size, NetworkModel: room.StateSync})
	if err != nil {
		return 0, err
	}
	return uint32(seat.Player), nil
}

// link carries a statesync.Client's messages over a connection: large
// messages are split into chunks on the reliable lane, hashes and
// partitions go on the lane host.Lane names.
type link struct {
	conn   *transport.Conn
	reasm  ssmsg.Reassembler
	outbox host.Outbox
}

// receive waits for the next whole message from the server.
func (l *link) receive(ctx context.Context) (ssmsg.Message, error) {
	for {
		tm, err := l.conn.Receive(ctx)
		if err != nil {
			return nil, err
		}
		if m, err := l.reasm.Parse(tm.Data); err == nil && m != nil {
			return m, nil
		}
	}
}

// flush sends everything the core has ready.
func (l *link) flush(core *statesync.Client) error {
	if _, err := l.outbox.Drain(l.conn, lanes.Orders); err != nil {
		return err
	}
	for core.HasReady() {
		rd := core.Ready()
		for _, m := range rd.Messages {
			if err := l.send(m); err != nil {
				return err
			}
		}
		core.Advance(rd)
	}
	l.conn.Flush()
	return nil
}

func (l *link) send(m ssmsg.Message) error {
	b, err := ssmsg.Append(nil, m)
	if err != nil {
		return err
	}
	lane := host.Lane(m, len(b))
	if lane != lanes.Orders {
		return l.conn.Send(lane, b)
	}
	pieces, err := ssmsg.Split(b, host.MaxDatagramMessage)
	if err != nil {
		return err
	}
	_, err = l.outbox.Send(l.conn, lane, pieces)
	return err
}
