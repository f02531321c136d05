package statesync

// EventKind says what an Event records.
type EventKind uint8

// Event kinds.
const (
	EventJoined            EventKind = iota + 1 // Client joined (Bootstrap: it founded the room)
	EventLeft                                   // Client left
	EventTimedOut                               // Client was silent too long and was dropped
	EventPromoted                               // Client became ACTIVE (Duration: since it joined or resynced)
	EventVerdict                                // Frame's majority Hash; Clients disagreed; Count of Voters agreed
	EventTier                                   // Frame verified at Tier
	EventPartitionRejected                      // Client's partition Part of Frame refused by the trust model
	EventDesync                                 // Client disagreed at Frame; recovery starts
	EventRecovered                              // Client agrees again at Frame (Frames since detection, Bytes of recovery traffic)
	EventCorrectionSent                         // Client gets a correction of Count buckets (Bytes)
	EventSnapshotFallback                       // Client recovers by full state instead
	EventStateAssembled                         // the full state of Frame was assembled and verified (Bytes)
	EventStateRejected                          // the full state of Frame did not hash to the majority
	EventReadOnly                               // the room lost its quorum (On) or regained it
	EventOffence                                // Client committed an Offence
	EventRemoved                                // Client was removed for an Offence
)

// Event is something the core did, for logs, metrics and tests.
type Event struct {
	Kind      EventKind
	Client    uint32
	Frame     uint32
	Hash      uint32
	Clients   []uint32
	Count     int
	Voters    int
	Part      uint16
	Tier      Tier
	Frames    uint32
	Bytes     int
	Duration  int64 // nanoseconds
	Bootstrap bool
	On        bool
	Offence   Offence
}
