// Package host runs state-sync rooms in tickwire's server: Model is the
// "state_sync" network model for the server's model seam
// (server/room), and its rooms are the thin adapter around the pure
// statesync.Server core that the room driver (room.Driver) runs: they
// decode what the seats send, feed the core with the server clock, and
// hand the driver what it produces, encoded. The driver sends it, and
// applies the server's one backpressure policy (room.SendGrace) to a
// seat that does not take it.
//
// Every message travels on the reliable ordered orders lane, except
// STATE_HASH and PARTITION_DATA from clients, which a client sends on the
// unreliable sequenced control lane (a lost hash only costs that frame's
// vote; a lost partition is asked again). Messages larger than a datagram
// are split into CHUNK messages (statesync/msg), because the lanes a
// server offers to every model do not fragment reliable traffic.
//
// The model takes late joiners (room.Model.LateJoin): a new connection
// joining the playing room gets the seat of a player whose connection
// ended, and the room joins its player id to the core late (NEW →
// SYNCING → ACTIVE). A client may also leave and come back on its
// connection: BYE, and later HELLO, which the room turns into a leave and
// a late join of the core.
package host
