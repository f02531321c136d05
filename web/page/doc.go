// Package page serves tickwire's playable page: an HTML page (embedded,
// no CDN, works offline) that loads the prediction client compiled to
// WebAssembly (package web/client), joins a prediction room over the
// server's WebSocket endpoint and draws the action game on a canvas.
//
// Routes of Handler:
//
//	/              the page
//	/wasm_exec.js  Go's WebAssembly support script (of the Go that built tw.wasm)
//	/tw.wasm       the client
//	/config.json   what the client joins: Join, as JSON
//	/ws            the server's WebSocket endpoint (transport.Listener.WebSocketHandler)
//
// Where the client comes from: a binary built after `go generate
// ./web/page` embeds assets/tw.wasm and assets/wasm_exec.js (both
// generated, not committed). Without them — a fresh clone, `go run`,
// `go test` — Prepare builds them once with the go command into a
// temporary directory, so a machine with only Go needs no extra step.
package page
