package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"

	"github.com/tickwire/tickwire/relay/admin"
	"github.com/tickwire/tickwire/relay/server"
	"github.com/tickwire/tickwire/transport"
)

// relayFlags are the options of "tickwire relay".
type relayFlags struct {
	listen   string
	admin    string
	tps      int
	maxGames int
	maxConns int
	sec      securityFlags
}

func parseRelayFlags(args []string, stderr io.Writer) (relayFlags, error) {
	var f relayFlags
	fs := flag.NewFlagSet("relay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.listen, "listen", "127.0.0.1:7777", "UDP address for clients")
	fs.StringVar(&f.admin, "admin", "127.0.0.1:7778", "HTTP address for /healthz, /readyz and /metrics (empty: none)")
	fs.IntVar(&f.tps, "tps", 30, "ticks per second")
	fs.IntVar(&f.maxGames, "max-games", 0, "concurrent games (rooms), 0 for no limit")
	fs.IntVar(&f.maxConns, "max-conns", 16384, "concurrent client connections")
	f.sec.addServer(fs)
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case f.tps < 1 || f.tps > 1000:
		return f, fmt.Errorf("%w: --tps must be 1..1000", errUsage)
	case f.maxGames < 0 || f.maxConns < 1:
		return f, fmt.Errorf("%w: --max-games must not be negative, --max-conns positive", errUsage)
	}
	return f, nil
}

// runRelay hosts games until ctx ends (SIGINT or SIGTERM): "tickwire relay".
func runRelay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseRelayFlags(args, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	tcfg := server.TransportConfig()
	tcfg.MaxConnections = f.maxConns
	tcfg.AcceptBacklog = 1024
	if tcfg.Security, err = f.sec.serverConfig(f.maxConns); err != nil {
		return err
	}
	ln, err := listenRelay(ctx, f.listen, tcfg)
	if err != nil {
		return err
	}
	srv := server.New(server.Config{TickRate: f.tps, MaxGames: f.maxGames, Logger: log,
		RequireToken: tcfg.Security != nil && tcfg.Security.Matchmaker != nil})
	var wg sync.WaitGroup
	var adminErr error
	if f.admin != "" {
		hl, err := net.Listen("tcp", f.admin)
		if err != nil {
			ln.Close()
			return err
		}
		adm := admin.New(adminSource(srv, ln))
		adm.SetReady(true)
		wg.Go(func() { adminErr = adm.Serve(ctx, hl) })
		log.Info("admin listening", "addr", hl.Addr().String())
	}
	log.Info("relay listening", "addr", ln.Addr().String(), "tps", f.tps, "max_games", f.maxGames,
		"encrypted", tcfg.Security != nil, "public_key", publicKeyHex(tcfg.Security),
		"tokens_required", tcfg.Security != nil && tcfg.Security.Matchmaker != nil)
	err = srv.Serve(ctx, ln)
	// Shutting down: end the games, close their connections gracefully,
	// then the socket.
	srv.Close()
	ln.Close()
	wg.Wait()
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		err = nil
	}
	log.Info("relay stopped")
	return errors.Join(err, adminErr)
}

// socketBuffer is the kernel buffer size asked for the relay's socket in
// each direction: one socket carries every player's traffic, and at tick
// boundaries hundreds of games' submissions arrive together. The default
// (about 200 KiB on Linux) overflows from about a hundred games on, and
// every datagram dropped there is an order late by a retransmission. The
// kernel caps the request (net.core.rmem_max, wmem_max).
const socketBuffer = 4 << 20

// listenRelay opens the relay's UDP socket with large kernel buffers and
// accepts transport connections on it.
func listenRelay(ctx context.Context, addr string, tcfg transport.Config) (*transport.Listener, error) {
	var lc net.ListenConfig
	pc, err := lc.ListenPacket(ctx, "udp", addr)
	if err != nil {
		return nil, err
	}
	if u, ok := pc.(*net.UDPConn); ok {
		// Best effort: a smaller buffer still works.
		u.SetReadBuffer(socketBuffer)
		u.SetWriteBuffer(socketBuffer)
	}
	ln, err := transport.Listen(ctx, pc, tcfg)
	if err != nil {
		pc.Close()
	}
	return ln, err
}

// adminSource exposes a relay server's figures (and its listener's
// handshake refusals) to the admin endpoint.
func adminSource(srv *server.Server, ln *transport.Listener) admin.Source {
	return admin.SourceFunc(func() admin.Stats {
		st := srv.Stats()
		a := admin.Stats{
			ActiveGames:    st.ActiveGames,
			Players:        st.Players,
			LateOrders:     st.LateOrders,
			Strikes:        st.Strikes,
			QosAdjustments: st.QosAdjustments,
			Desyncs:        st.Desyncs,
			Removals:       st.Removals,
			HostStalls:     st.HostStalls,
			BytesIn:        st.BytesIn,
			BytesOut:       st.BytesOut,
		}
		addFigures(&a, st, ln.Stats())
		return a
	})
}
