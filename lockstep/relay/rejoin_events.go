package relay

import (
	"time"

	"github.com/tickwire/tickwire/protocol"
)

// PlayerAway: the player's connection ended; its slot plays Idle and it
// is removed unless it is active again by Until.
type PlayerAway struct {
	Player protocol.PlayerID
	Until  time.Duration
}

// SnapshotRequested: Donor was asked for its state after Tick, for To (a
// rejoining player or an observer); Attempt counts the donors asked.
type SnapshotRequested struct {
	To, Donor protocol.PlayerID
	Tick      uint64
	Attempt   int
}

// DonorFailed: a donor's snapshot for To was not used, for Reason.
type DonorFailed struct {
	To, Donor protocol.PlayerID
	Tick      uint64
	Reason    string
}

// SnapshotLoaded: To verified the snapshot of Tick (Chunks chunks,
// Bytes bytes) against the agreed hash and loaded it, After the request.
type SnapshotLoaded struct {
	To, Donor     protocol.PlayerID
	Tick          uint64
	Chunks, Bytes int
	After         time.Duration
}

// PlayerRejoined: the player caught up to Tick and is active again.
type PlayerRejoined struct {
	Player  protocol.PlayerID
	Tick    uint64
	Rejoins int
}

// TransferAborted: no donor gave To a snapshot it could verify; a
// rejoining player is removed, an observer is closed by the embedder.
type TransferAborted struct {
	To       protocol.PlayerID
	Observer bool
	Attempts int
	Reason   string // "no donor left", or "no witness: …"
}

func (PlayerAway) isEvent()        {}
func (SnapshotRequested) isEvent() {}
func (DonorFailed) isEvent()       {}
func (SnapshotLoaded) isEvent()    {}
func (PlayerRejoined) isEvent()    {}
func (TransferAborted) isEvent()   {}
