// Package netlayer carries package predict's messages over a tickwire
// transport connection (Remote), and chooses between that and the
// in-process loopback with one flag (Open). It is the thin shell around
// predict's pure cores: the socket, the reader goroutine and the clock
// live here.
//
// # Lanes
//
// Package lanes maps predict's lanes onto the server's lanes (server/lanes).
// Inputs travel on the unreliable sequenced Critical lane, each message
// repeating every input the server has not acknowledged, so a lost
// datagram is repaired by the next one instead of a retransmission round
// trip; an input that is late anyway is merged into the next tick
// (predict.LateApplyNext). Snapshots are unreliable: a lost one is
// superseded by the next.
//
// # Joining
//
// Join joins a room of the server with server/join's Join (a JoinRoom
// with network model "prediction", answered by JoinAccepted or
// JoinRefused; a refusal is a *join.JoinError); after it the connection
// carries only predict messages.
package netlayer
