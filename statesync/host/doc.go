// Package host runs state-sync rooms in tickwire's server: Model is the
// "state_sync" network model for the server's model seam
// (relay/server/room), and its rooms are the thin shell around the pure
// statesync.Server core: they decode what the seats send, feed the core
// with the server clock, and send what it produces.
//
// Every message travels on the reliable ordered orders lane, except
// STATE_HASH and PARTITION_DATA from clients, which a client sends on the
// unreliable sequenced control lane (a lost hash only costs that frame's
// vote; a lost partition is asked again). Messages larger than a datagram
// are split into CHUNK messages (statesync/msg), because the lanes a
// server offers to every model do not fragment reliable traffic.
//
// The server seam fixes a room's seats when it starts, so a seat cannot
// be given to a new connection. A client that leaves and comes back keeps
// its connection: it sends BYE, and later HELLO, which the room turns into
// a leave and a late join of the core.
package host
