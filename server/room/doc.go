// Package room is the seam between the game server and the network models
// it hosts. The server (package server) does what every model
// shares: it accepts connections, runs the join exchange, admits or
// refuses players, names rooms and keeps them until they fill or expire,
// limits each connection's inbound message rate, and publishes figures.
// When a room has all its players it hands the seated connections to the
// room implementation of the room's network model, through this package:
//
//	server                                  model (e.g. lockstep, fog_authoritative)
//	  JoinRoom → pick model → seat ──┐
//	  … room full …                  └─▶ Model.New(Params{Seats, Inbox, Clock, …}) → Room
//	  reader per seat ─ rate limit ─▶ Inbox ─▶ Room.Run (one goroutine: the Driver)
//	  JoinRoom as rejoin/spectator/late ─▶ Inbox (Inbound.Joined) ─▶ Room.Run
//	  Stats / metrics ◀──────────────────── Room.Status, Model.Metrics
//	  close seats left open ◀──────────────  Run returns
//
// # The driver
//
// A model brings only what is its own: a Core (handle an inbound message
// or seat change with now, tick with now, what to send to whom, status,
// its end) and its figures (Model.Metrics). Driver runs any model's Core
// and owns the rest, the same for every model:
//
//	Inbox.Ready or timer ─▶ Take ─▶ Core.Handle(now, in) … ─▶ Core.Tick(now)
//	  ─▶ for Core.HasReady: Ready ─▶ Conn.Send per seat ─▶ FlushGroup.Flush ─▶ close seats ─▶ Core.Advance
//	  ─▶ backpressure policy (SendGrace) ─▶ Status every StatusInterval ─▶ timer = Core.Next
//
// The backpressure policy: a seat that takes nothing for SendGrace (its
// reliable lane refuses and its backlog does not move, or its peer
// acknowledges nothing) is disconnected with ErrTooSlow's text as the
// reason its client reads, counted (Counters.TooSlow) and logged at most
// once a second per model; the others play on. See backpressure.go.
//
// A model lives in a package of its own and imports this package, never
// another model. It declares the transport channels it uses
// (Model.Channels, taken from server/lanes.Channels() so every model keeps
// the same lanes and every client dials with lanes.TransportConfig());
// every connection of a server shares one transport
// configuration, the union of its models' channels.
//
// A model that can take connections after its start says so
// (Model.Rejoin, Model.MaxSpectators, Model.LateJoin for new players in
// the seat of one who left). The server then gives each seat a
// rejoin secret in its JoinAccepted, checks a rejoin's player and secret
// (constant-time) and a spectator's limit, and hands the new connection
// to the running room through the Inbox; the model never sees a refused
// join. A model that says nothing (lockstep) keeps its seats fixed.
//
// A model's room decodes its own messages (Inbound.Msg is the raw
// transport message), so each model has its own message set after the
// join exchange. It must not read from a seat's connection itself: the
// server's reader does, and queues what it reads in the Inbox.
package room
