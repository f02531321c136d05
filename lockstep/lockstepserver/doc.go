// Package lockstepserver is the lockstep network model of a tickwire
// server: Model returns the room.Model a server hosts, and each room is a
// thin adapter (a room.Core) around a pure relay.Core that the room
// driver (server/room.Driver) runs.
//
//	seats joined ─ relay.New (seed exchange, calibration)
//	each turn:  Inbox (messages decoded with lockstep/msg; a seat's end) ─ Core.Step / Leave
//	            (while the game plays, messages wait for the next deadline:
//	            they carry their arrival time, nothing they cause is due before it)
//	            Core.Tick ─ Ready: tick frames, events (counted, logged, Config.OnEvent),
//	            a LateNotice per late player ─ one flush for the room ─ Advance
//	a player the core removes: its seat is closed ("removed from the match")
//	a seat that takes nothing for room.SendGrace: the driver disconnects it and
//	            the core removes the player (Leave, at a scheduled tick)
//	the game ends, or every seat is gone: the room is done
//
// A connection that ends removes its player (relay.Core.Leave: at a
// scheduled tick during play, so every client removes it on the same
// tick).
//
// The model's figures (Lockstep.Stats, and on /metrics through
// room.Model.Metrics) are lockstep's own: late orders, strikes, removals,
// QoS adjustments, desyncs, host stalls, messages that did not decode
// and messages the core refused by kind, and how late tick frames left
// (tickwire_relay_broadcast_lateness_seconds). Their metric names are
// those the server reported before it hosted other models.
package lockstepserver
