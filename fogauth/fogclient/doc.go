// Package fogclient is the client side of a fog-authoritative game over a
// transport connection: Join asks a tickwire server for a seat in a
// fog-authoritative room (with server/join's Join, so a refusal is a
// *join.JoinError matching join.ErrRoomFull, …), and the Client it
// returns keeps the player's partial world (a fogauth.Client core) up to
// date from the server's StateUpdates, acknowledges them, and sends the
// player's orders. Its methods have the shape of a lockstep network
// model where that fits (SubmitOrder, PollTick, Status, Diagnostics)
// without importing lockstep; FogDiagnostics adds the seed's fog
// figures.
//
// Spectate joins a playing room as a spectator (player 0; Watch consumes
// its ticks). A player's Ticket (room, player, the seat's secret) lets
// Rejoin take its seat again on a new connection after the old one
// ended; PlayBotRejoining does so for a bot whose connection drops.
//
// A reader goroutine applies each message as it arrives; a flusher sends
// the acknowledgement and the queued orders twice per tick interval.
// Read the partial world with WithWorld, which holds the client's lock.
package fogclient
