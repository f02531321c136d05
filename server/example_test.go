package server_test

import (
	"context"
	"fmt"
	"net"

	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// A Server serves rooms on a transport.Listener: here a UDP socket on
// loopback, hosting rooms of the models in Config.Models (here lockstep's,
// lockstepserver.Model). A player joins a room by name and size; the match
// starts when the room is full.
func ExampleServer_Serve() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	l, err := transport.Listen(ctx, pc, lanes.TransportConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	srv := server.New(server.Config{Models: []room.Model{lockstepserver.Model(lockstepserver.Config{})}})
	defer srv.Close()
	go srv.Serve(ctx, l)

	// A player, elsewhere: dial the server and join room "duel" of two.
	cpc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	conn, err := transport.Dial(ctx, cpc, l.Addr(), lanes.TransportConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	rc, err := lockstep.JoinRelay(ctx, conn, "duel", 2, lockstep.RelayClientConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rc.Close()
	fmt.Println("seated as player", rc.PlayerID(), "of", rc.RoomSize(), "in a", rc.NetworkModel(), "room")
	// Output: seated as player 1 of 2 in a lockstep room
}
