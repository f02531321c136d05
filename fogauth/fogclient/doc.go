// Package fogclient is the client side of a fog-authoritative game over a
// transport connection: Join asks a relay server for a seat in a
// fog-authoritative room, and the Client it returns keeps the player's
// partial world (a fogauth.Client core) up to date from the server's
// StateUpdates, acknowledges them, and sends the player's orders. Its
// methods follow lockstep.NetworkModel where that shape fits
// (SubmitOrder, PollTick, Status, Diagnostics); FogDiagnostics adds the
// seed's fog figures.
//
// A reader goroutine applies each message as it arrives; a flusher sends
// the acknowledgement and the queued orders twice per tick interval.
// Read the partial world with WithWorld, which holds the client's lock.
package fogclient
