package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// WebSocketSubprotocol is the subprotocol a WebSocket client requests.
const WebSocketSubprotocol = "tickwire"

// wsStream carries one datagram per binary WebSocket message, so a browser
// reads and writes datagrams with no framing of its own.
type wsStream struct {
	c             *websocket.Conn
	local, remote net.Addr
}

func newWSStream(c *websocket.Conn, local, remote net.Addr) *wsStream {
	c.SetReadLimit(maxFrame)
	return &wsStream{c: c, local: local, remote: remote}
}

func (s *wsStream) readFrame(b []byte, idle time.Duration) (int, error) {
	ctx := context.Background()
	if idle > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, idle) // expiry closes the connection
		defer cancel()
	}
	typ, r, err := s.c.Reader(ctx)
	if err != nil {
		return 0, err
	}
	if typ != websocket.MessageBinary {
		return 0, fmt.Errorf("%w: text WebSocket message", ErrMalformed)
	}
	n, err := io.ReadFull(r, b)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return n, nil
	case err != nil:
		return 0, err
	}
	return 0, fmt.Errorf("%w: WebSocket message over %d bytes", ErrMalformed, len(b))
}

func (s *wsStream) writeFrame(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), streamWriteTimeout)
	defer cancel()
	return s.c.Write(ctx, websocket.MessageBinary, b)
}

func (s *wsStream) close() error         { return s.c.CloseNow() }
func (s *wsStream) localAddr() net.Addr  { return s.local }
func (s *wsStream) remoteAddr() net.Addr { return s.remote }

// wsAddr is the address of a WebSocket server: its URL.
type wsAddr string

func (a wsAddr) Network() string { return "websocket" }
func (a wsAddr) String() string  { return string(a) }

// WebSocketHandler returns an HTTP handler that accepts connections over
// WebSocket (for browsers) into the Listener, with the same handshake,
// encryption, limits and Accept queue. Mount it on any http.Server path.
// originPatterns lists the other origins whose pages may connect (see
// websocket.AcceptOptions.OriginPatterns); same-origin pages always may.
// The client's address is the request's RemoteAddr: behind a reverse
// proxy all clients share the proxy's address and its per-IP limits.
func (l *Listener) WebSocketHandler(originPatterns ...string) http.Handler {
	var (
		once sync.Once
		ss   *streamServer
		err  error
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() {
			ss = newStreamServer(wsAddr("websocket"), l.set)
			var ep *endpoint
			if ep, err = l.serve(ss); err == nil {
				ss.onEnd = ep.peerGone
			}
		})
		if err != nil {
			http.Error(w, "server closed", http.StatusServiceUnavailable)
			return
		}
		ap, perr := netip.ParseAddrPort(r.RemoteAddr)
		if perr != nil {
			http.Error(w, "bad remote address", http.StatusBadRequest)
			return
		}
		c, aerr := websocket.Accept(w, r, &websocket.AcceptOptions{
			Subprotocols:   []string{WebSocketSubprotocol},
			OriginPatterns: originPatterns,
		})
		if aerr != nil {
			return // Accept answered the request
		}
		ss.serve(newWSStream(c, wsAddr("websocket"), net.TCPAddrFromAddrPort(ap)))
	})
}

// DialWebSocket connects over WebSocket to a URL such as
// "wss://example.net/play".
func DialWebSocket(ctx context.Context, url string, cfg Config) (*Conn, error) {
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{WebSocketSubprotocol}})
	if err != nil {
		return nil, err
	}
	s := newWSStream(c, wsAddr("websocket-client"), wsAddr(url))
	return Dial(ctx, &streamPacketConn{s: s}, wsAddr(url), cfg)
}
