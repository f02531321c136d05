package main

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/tickwire/tickwire/examples/echo"
	"github.com/tickwire/tickwire/examples/echo/echoclient"
	"github.com/tickwire/tickwire/examples/echo/echoserver"
	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/fogauth/fogserver"
	"github.com/tickwire/tickwire/lockstep"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/netsim"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/statesync/host"
	"github.com/tickwire/tickwire/statesync/syncclient"
	"github.com/tickwire/tickwire/transport"
)

// TestEveryClientGetsTheSameRefusal: a server hosting the four network
// models refuses a join for the same reason whichever model's client
// asks, and each client hands the caller the same typed refusal: a
// *join.JoinError matching join.ErrRefused and the reason's sentinel.
func TestEveryClientGetsTheSameRefusal(t *testing.T) {
	clients := map[string]func(ctx context.Context, conn *transport.Conn, roomName string) error{
		room.Lockstep: func(ctx context.Context, conn *transport.Conn, roomName string) error {
			_, err := lockstep.JoinRelay(ctx, conn, roomName, 2, lockstep.RelayClientConfig{})
			return err
		},
		room.FogAuthoritative: func(ctx context.Context, conn *transport.Conn, roomName string) error {
			_, err := fogclient.Join(ctx, conn, roomName, 2, fogclient.Config{})
			return err
		},
		room.Prediction: func(ctx context.Context, conn *transport.Conn, roomName string) error {
			_, err := netlayer.Join(ctx, conn, roomName, 2)
			return err
		},
		room.StateSync: func(ctx context.Context, conn *transport.Conn, roomName string) error {
			res := syncclient.Play(ctx, syncclient.Run{Players: 1, RoomSize: 2, Room: roomName, Frames: 1,
				Dial: func(context.Context, int) (*transport.Conn, error) { return conn, nil }})
			return res[0].Err
		},
		echo.ModelName: func(ctx context.Context, conn *transport.Conn, roomName string) error {
			_, err := echoclient.Join(ctx, conn, roomName, 2)
			return err
		},
	}
	synctest.Test(t, func(t *testing.T) {
		cfg := server.Config{MaxGames: 1, AllowRequestedModel: true, Models: []room.Model{lockstepserver.New(lockstepserver.Config{}).Model(), fogserver.Model(fogserver.Config{NewGame: rtsFog}), predictionModel(0), host.Model(host.Config{}), echoserver.Model(echoserver.Config{})}}
		tc, err := cfg.Transport()
		if err != nil {
			t.Fatal(err)
		}
		mn := netsim.NewMemNetwork()
		pc, err := mn.ListenPacket("")
		if err != nil {
			t.Fatal(err)
		}
		ln, err := transport.Listen(t.Context(), pc, tc)
		if err != nil {
			t.Fatal(err)
		}
		srv := server.New(cfg)
		ctx, cancel := context.WithCancel(t.Context())
		served := make(chan struct{})
		go func() { srv.Serve(ctx, ln); close(served) }()
		defer func() {
			cancel()
			ln.Close()
			<-served
			srv.Close()
		}()
		dial := func() *transport.Conn {
			pc, err := mn.ListenPacket("")
			if err != nil {
				t.Fatal(err)
			}
			c, err := transport.Dial(t.Context(), pc, ln.Addr(), tc)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		// The server's only game: a waiting room.
		first := dial()
		defer first.Close()
		if _, err := join.Join(t.Context(), first, join.Request{Room: "taken", RoomSize: 2}); err != nil {
			t.Fatal(err)
		}
		for model, joinWith := range clients {
			err := joinWith(t.Context(), dial(), "another")
			var je *join.JoinError
			if !errors.As(err, &je) || je.Reason != join.RefuseServerFull || !errors.Is(err, join.ErrRefused) || !errors.Is(err, join.ErrServerFull) {
				t.Errorf("%s client: %v, want a *join.JoinError matching join.ErrServerFull", model, err)
			}
			if errors.Is(err, join.ErrRoomFull) {
				t.Errorf("%s client: a full server matches ErrRoomFull", model)
			}
		}
		if st := srv.Stats(); st.Refused[join.RefuseServerFull] != uint64(len(clients)) {
			t.Errorf("server counted %d refusals for a full server, want %d", st.Refused[join.RefuseServerFull], len(clients))
		}
	})
}
