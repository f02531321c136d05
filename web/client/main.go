//go:build js && wasm

package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"syscall/js"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/predict/netlayer"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/sim/action"
	"github.com/tickwire/tickwire/transport"
	"github.com/tickwire/tickwire/web/impair"
	"github.com/tickwire/tickwire/web/page"
)

func main() {
	doc := js.Global().Get("document")
	status := doc.Call("getElementById", "tw-status")
	if err := play(context.Background(), doc, status); err != nil {
		status.Set("textContent", "error: "+err.Error())
	}
	select {} // keep the callbacks alive
}

// join fetches what to join from the page's server.
func join(origin string) (page.Join, error) {
	var j page.Join
	resp, err := http.Get(origin + "/config.json" + js.Global().Get("location").Get("search").String())
	if err != nil {
		return j, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return j, fmt.Errorf("config.json: %s", resp.Status)
	}
	return j, json.NewDecoder(resp.Body).Decode(&j)
}

func play(ctx context.Context, doc, status js.Value) error {
	loc := js.Global().Get("location")
	origin := loc.Get("origin").String()
	j, err := join(origin)
	if err != nil {
		return err
	}
	cfg := lanes.TransportConfig()
	if j.ServerKey != "" {
		key, err := hex.DecodeString(j.ServerKey)
		if err != nil || len(key) != ed25519.PublicKeySize {
			return fmt.Errorf("config.json: bad server_key")
		}
		cfg.Security = &transport.SecurityConfig{ServerKey: ed25519.PublicKey(key)}
	}
	url := "ws" + strings.TrimPrefix(origin, "http") + "/ws"
	status.Set("textContent", "joining room "+j.Room+"…")
	inner, err := netlayer.Open(ctx, netlayer.Options{Room: j.Room, RoomSize: j.RoomSize,
		Dial: func(ctx context.Context) (*transport.Conn, error) { return transport.DialWebSocket(ctx, url, cfg) }})
	if err != nil {
		return err
	}
	net := impair.New(inner, uint64(time.Now().UnixNano()))
	c := predict.NewClientFor(predict.ClientConfig{}, func(tickRate int) predict.Game {
		return actiongame.New(action.Config{TickRate: tickRate, ArenaSize: j.Arena, MaxPlayers: 255}, 0)
	})
	g := newGame(doc, c, net, inner.(*netlayer.Remote))
	status.Set("textContent", "playing in room "+j.Room)
	go g.run(ctx)
	return nil
}
