// Package echo is the pure core of the smallest network model tickwire
// hosts, written as the worked example of how to write your own: a room
// where every line a player says is repeated, with its sender, to every
// player of the room. Its room shell is package echoserver, its client
// and bots package echoclient.
// It is played by "tickwire demo --mode echo" and "tickwire bot --mode
// echo", and hosted by "tickwire serve" beside lockstep,
// fog-authoritative, prediction and state sync.
//
// # Writing your own network model
//
// A network model is a few packages of its own plus one file in
// cmd/tickwire: a pure core (this package), its server model
// (echoserver) and its client (echoclient), as fogauth, predict and
// statesync have. No model imports another (internal/layering fails if
// one does), and the core imports no socket.
//
//  1. Messages (msg.go). Give every message after the join exchange a
//     wire.MessageType and an Append beside its Parse, draw the layout in
//     a comment, pin it with golden bytes and fuzz every Parse seeded from
//     the encoders (msg_test.go). Decoders size nothing from a number the
//     peer wrote and never panic.
//  2. The pure core (hub.go). Plain Go with explicit inputs: what a seat
//     sent, a seat that left (and the time, when the model has one).
//     It queues what to send to whom (Envelope); the shell takes it with
//     Ready and releases it with Advance. No socket, no clock, no
//     goroutine: its tests are plain calls (hub_test.go).
//  3. The server model (echoserver): a server/room.Model (Name, MaxRoomSize,
//     Channels from server/lanes, New, Metrics). New gets room.Params
//     once every seat is taken and returns room.NewDriver(p, core): the
//     shared room driver is the shell (it takes what the server's seat
//     readers queued in Params.Inbox, sends on the seats' connections,
//     flushes, drops a seat that cannot keep up, publishes Status), and
//     the model brings a room.Core, a small adapter that hands the pure
//     core what a seat sent or that a seat ended and returns what to
//     send to which seat.
//  4. The client (echoclient/client.go): dial with server/lanes.TransportConfig (or
//     server.Config.Transport), join with server/join's Join naming the
//     model (join.Request.NetworkModel; a refusal is a *join.JoinError),
//     then speak the model's messages.
//  5. The bot (echoclient/bot.go): clients that play from what they received, as a
//     player's would, side by side (internal/botpool), and a Report whose
//     verdict a test and the binary check.
//  6. One file in cmd/tickwire (mode_echo.go) implementing its mode
//     interface: the --mode word, the model's name, the settings table
//     ([relay.NAME] of server_config.toml, if any), the room models
//     "serve" hosts, and the demo and bot subcommands. Add the mode to
//     modes() there: demo, bot and serve pick it up.
//
// # The seam's contract (package server/room)
//
// The server does what every model shares: it accepts connections, runs
// the join exchange, chooses the room's model (a match type's, the
// join's request if the server allows it, else its default), names rooms
// and starts one when its seats are taken, rate-limits each
// connection's inbound messages, and publishes figures. A model's room
// then:
//
//   - reads nothing from a seat's connection itself: every message
//     arrives through the Inbox, stamped with the server clock, in each
//     seat's order; a seat's end arrives there too (Inbound.Err);
//   - sends on the seats' connections, on the lanes it declared in
//     Model.Channels, and never blocks on a slow client: the driver
//     closes a seat that stays backed up (room.SendGrace) with a reason
//     its peer reads, counts it, and the room goes on for the others;
//   - publishes Status cheaply (the driver keeps it in an atomic) and its
//     counters through Model.Metrics (cumulative, read at scrape time);
//   - ends when its Core says Done (here: every seat is gone); the server
//     closes the seats still open.
//
// A message that arrives before the room starts has no room to go to;
// that is why this model's clients wait for the room's Start before they
// say anything.
//
// # Wire
//
// Start, Say and Echo travel on the server's reliable ordered lane
// (server/lanes.Orders), so a room repeats each seat's lines in the
// order the seat said them and every live seat hears each once; msg.go
// draws their layouts.
package echo
