// Package fogserver hosts fog-authoritative games in the tickwire relay
// server: Model returns the room.Model the server registers, and each
// room is a thin adapter (a room.Core) around a pure fogauth.Room that
// the room driver (room.Driver: one goroutine, the seats' connections,
// the flush, the backpressure policy) runs.
//
// # A room's life
//
//	seats joined ─ a secret simulation seed from crypto/rand, apart from the map's
//	            MatchStart (map seed and tick rate) to every seat, reliable
//	each tick:  Inbox (orders, acks; a seat's end) ─ Room.Step / RemoveClient
//	            Simulate ─ Publish ─ EndTick (timed: tick time, cost excluding the simulation)
//	            Ready ─ StateUpdates on the state lane (unreliable), Rejections on the
//	            orders lane (reliable-ordered) ─ one flush for the room ─ Advance
//	a seat joins while playing (Inbound.Joined: a player's rejoin, a spectator):
//	            AddClient with an empty view, MatchStart to it; Enters follow over
//	            the next ticks, spread by the budget. Every player gone: the room
//	            plays on for RejoinTimeout, then ends.
//	a player gone for RejoinTimeout: GiveUp (it counts as done)
//	after Config.MatchTicks, or once every player sent Done: Finish (the simulation stops), keep sending until every
//	            seat has acknowledged its whole view (or SettleTimeout), then a
//	            MatchEnd to each seat (the room's timing to spectators only), and
//	            the room is done: the server closes the seats
//	a seat that takes nothing for room.SendGrace: the driver disconnects it
//	            (the reason says why) and the room removes its client
//
// Channels are the server's lanes (server/lanes.Channels()): orders and the reliable
// messages on Orders, acknowledgements on Control (unreliable sequenced),
// StateUpdates on State (unreliable; the client drops a StateUpdate older
// than one it applied, which makes it sequenced by tick).
package fogserver
