// Command client is tickwire's prediction client compiled to WebAssembly
// (GOOS=js GOARCH=wasm) for the playable page of package web/page: it
// joins a prediction room over the browser's WebSocket (the transport's
// WebSocket fallback; github.com/coder/websocket drives the browser's
// WebSocket through syscall/js), plays the action game with the keyboard
// and mouse, draws it on the page's canvas and writes its figures into
// the element tw-stats as JSON (see stats.go). Only this command imports
// syscall/js: the cores and the transport do not (internal/layering).
//
// Built for any other target it only says how to build it.
package main
