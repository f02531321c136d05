package main

import (
	"context"
	"fmt"
	"net"
	"sync"

	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/server/dashboard"
	"github.com/tickwire/tickwire/transport"
)

// serveAdmin serves srv's admin endpoints and its dashboard on hl until
// ctx ends; token, if set, protects all but the probes and the page.
func serveAdmin(ctx context.Context, hl net.Listener, srv *server.Server, ln *transport.Listener, token string) error {
	return serveAdminWith(ctx, hl, newAdmin(srv, ln, token, nil), srv)
}

// newAdmin is the admin server of srv, ready, with token (or none) and
// extra's series (nil: none).
func newAdmin(srv *server.Server, ln *transport.Listener, token string, extra func() []admin.Metric) *admin.Server {
	adm := admin.New(adminSource(srv, ln, extra))
	adm.SetToken(token)
	adm.SetReady(true)
	return adm
}

// serveAdminWith serves adm and the dashboard on hl until ctx ends.
func serveAdminWith(ctx context.Context, hl net.Listener, adm *admin.Server, srv *server.Server) error {
	dash := dashboard.New(srv.RoomViews, dashboard.Config{})
	dash.Register(adm.Mux())
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Go(func() { dash.Run(ctx) })
	return adm.Serve(ctx, hl)
}

// dashboardURL is the dashboard's address on hl.
func dashboardURL(hl net.Listener) string {
	return fmt.Sprintf("http://%s/dashboard/", hl.Addr())
}

// isLoopback reports whether addr (host:port) binds loopback only.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
