package page

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"sync"
)

//go:generate go run ./genwasm assets

//go:embed assets
var assets embed.FS

// Join is what the client joins, served as /config.json.
type Join struct {
	Room     string `json:"room"`
	RoomSize int    `json:"room_size"`
	// Arena is the side of the action game's arena in units (0: 48); the
	// server's game must share it.
	Arena int `json:"arena"`
	// ServerKey is the server's Ed25519 public key in hex, which the
	// client pins; empty means a plaintext server (--insecure).
	ServerKey string `json:"server_key,omitempty"`
}

// Config configures a Page.
type Config struct {
	// WebSocket is the server's WebSocket endpoint, mounted at /ws.
	WebSocket http.Handler
	// Join chooses the room of each visitor loading the page.
	Join func(r *http.Request) (Join, error)
}

// Page serves the page, the client and the WebSocket endpoint.
type Page struct {
	cfg Config

	once   sync.Once
	client fs.FS  // tw.wasm and wasm_exec.js
	dir    string // the temporary build, removed by Close
	err    error
}

// New returns a page of cfg.
func New(cfg Config) *Page { return &Page{cfg: cfg} }

// Prepare makes the client ready: the embedded one, else one built now
// (see the package documentation). Serving calls it too; calling it first
// reports a missing client before anyone loads the page.
func (p *Page) Prepare(ctx context.Context) error {
	p.once.Do(func() {
		if Embedded() {
			p.client, _ = fs.Sub(assets, "assets")
			return
		}
		p.dir, p.err = os.MkdirTemp("", "tickwire-play-")
		if p.err == nil {
			p.err = BuildClient(ctx, p.dir)
			p.client = os.DirFS(p.dir)
		}
	})
	return p.err
}

// Embedded reports whether the binary carries the WebAssembly client;
// if not, Prepare builds it (about 30 s on two cores the first time,
// while the Go build cache is cold).
func Embedded() bool {
	_, err := fs.Stat(assets, "assets/tw.wasm")
	return err == nil
}

// Close removes a client built by Prepare.
func (p *Page) Close() error {
	if p.dir == "" {
		return nil
	}
	return os.RemoveAll(p.dir)
}

// Handler serves the routes listed in the package documentation.
func (p *Page) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, assets, "assets/index.html")
	})
	for _, name := range []string{"tw.wasm", "wasm_exec.js"} {
		mux.HandleFunc("GET /"+name, func(w http.ResponseWriter, r *http.Request) {
			if err := p.Prepare(r.Context()); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
			http.ServeFileFS(w, r, p.client, name)
		})
	}
	mux.HandleFunc("GET /config.json", func(w http.ResponseWriter, r *http.Request) {
		if p.cfg.Join == nil {
			http.Error(w, "no room to join", http.StatusServiceUnavailable)
			return
		}
		j, err := p.cfg.Join(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(j)
	})
	if p.cfg.WebSocket != nil {
		mux.Handle("/ws", p.cfg.WebSocket)
	}
	return mux
}
