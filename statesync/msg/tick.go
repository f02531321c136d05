package msg

import "github.com/tickwire/tickwire/wire"

// Tick is the server's broadcast that advances every client by one frame.
// It carries the frame's inputs, the verdict on the latest frame whose
// hashes were collected, the latest assembled delta, the versions of the
// client list and reliability scores the frame's sender assignment uses,
// and the requests the server makes of named clients at this frame.
type Tick struct {
	Frame              uint32
	ReliabilityVersion uint32
	ClientListVersion  uint32
	// Inputs holds at most one entry per client, in ascending client order.
	Inputs []ClientInput
	// Verdict is valid when HasVerdict.
	HasVerdict bool
	Verdict    Verdict
	// Assembled is valid when HasAssembled.
	HasAssembled bool
	Assembled    Assembled
	// Requests are addressed to single clients; they act on this frame.
	Requests []Request
	// ReadOnly says the room has lost its quorum: clients simulate but
	// send no partitions until a Tick without it.
	ReadOnly bool
	// Digest asks every client for a StateDigest of this frame.
	Digest bool
	// Parts is the frame's partition count, the server's own (from the
	// entity count more than half of the voters agreed on at the last
	// digest frame); clients split their delta into this many partitions.
	Parts uint16
}

// ClientInput is one client's input for a frame, opaque to state sync.
type ClientInput struct {
	Client uint32
	Data   []byte
}

// Verdict is the majority state hash of a frame and the clients whose
// hash differed from it, in ascending order.
type Verdict struct {
	Frame    uint32
	Hash     uint32
	Desynced []uint32
}

// Assembled is the structural delta of a frame, assembled by the server
// from trusted partitions, and its xxHash32.
type Assembled struct {
	Frame uint32
	Hash  uint32
	Delta []byte
}

// RequestKind is what a Tick asks of one client at the Tick's frame.
type RequestKind uint8

// Request kinds.
const (
	// RequestFreeze: your state hash disagreed with the majority. After
	// simulating this frame send MerkleLeaves for it and simulate no
	// further until a PartitionCorrection or FullState for it arrives.
	RequestFreeze RequestKind = 1
	// RequestLeaves: after simulating this frame send MerkleLeaves for it
	// and keep a copy of its state for a following EntityRequest.
	RequestLeaves RequestKind = 2
	// RequestFullPart: after simulating this frame send partition Part of
	// Parts of the full state as EntityData.
	RequestFullPart RequestKind = 3
	// RequestResync: after simulating this frame stop, hold the Ticks
	// that follow and wait for a FullState (a recovery that fell back to
	// a snapshot).
	RequestResync RequestKind = 4
)

// Request is one request of a Tick.
type Request struct {
	Client uint32
	Kind   RequestKind
	Part   uint16
	Parts  uint16
}

const (
	tickHasVerdict   = 1 << 0
	tickHasAssembled = 1 << 1
	tickReadOnly     = 1 << 2
	tickDigest       = 1 << 3
)

func (*Tick) Type() wire.MessageType { return TypeTick }

func (m *Tick) appendTo(b *wire.Builder) {
	var flags uint8
	if m.HasVerdict {
		flags |= tickHasVerdict
	}
	if m.HasAssembled {
		flags |= tickHasAssembled
	}
	if m.ReadOnly {
		flags |= tickReadOnly
	}
	if m.Digest {
		flags |= tickDigest
	}
	b.U32(m.Frame).U32(m.ReliabilityVersion).U32(m.ClientListVersion).U8(flags).U16(m.Parts)
	b.ArrayHeader(uint32(len(m.Inputs)))
	for _, in := range m.Inputs {
		b.Elem().U32(in.Client).Bytes(in.Data)
	}
	if m.HasVerdict {
		b.U32(m.Verdict.Frame).U32(m.Verdict.Hash)
		appendIDs(b, m.Verdict.Desynced)
	}
	if m.HasAssembled {
		b.U32(m.Assembled.Frame).U32(m.Assembled.Hash).Bytes(m.Assembled.Delta)
	}
	b.ArrayHeader(uint32(len(m.Requests)))
	for _, q := range m.Requests {
		b.Elem().U32(q.Client).U8(uint8(q.Kind)).U16(q.Part).U16(q.Parts)
	}
}

func (m *Tick) parseFrom(r *wire.Reader) error {
	m.Frame, m.ReliabilityVersion, m.ClientListVersion = r.U32(), r.U32(), r.U32()
	flags := r.U8()
	if flags&^(tickHasVerdict|tickHasAssembled|tickReadOnly|tickDigest) != 0 {
		return invalid(r, "tick flags")
	}
	m.HasVerdict, m.HasAssembled = flags&tickHasVerdict != 0, flags&tickHasAssembled != 0
	m.ReadOnly, m.Digest = flags&tickReadOnly != 0, flags&tickDigest != 0
	m.Parts = r.U16()
	// An input is at least a client and a one-byte length.
	if n := listHeader(r, 5); n > 0 {
		m.Inputs = make([]ClientInput, n)
		for i := range m.Inputs {
			m.Inputs[i] = ClientInput{Client: r.U32(), Data: r.Bytes()}
			if i > 0 && m.Inputs[i].Client <= m.Inputs[i-1].Client {
				return invalid(r, "inputs not in ascending client order")
			}
		}
	}
	if m.HasVerdict {
		m.Verdict.Frame, m.Verdict.Hash = r.U32(), r.U32()
		var err error
		if m.Verdict.Desynced, err = parseIDs(r); err != nil {
			return err
		}
	}
	if m.HasAssembled {
		m.Assembled = Assembled{Frame: r.U32(), Hash: r.U32(), Delta: r.Bytes()}
	}
	// A request is a client, a kind, a part and a count.
	if n := listHeader(r, 9); n > 0 {
		m.Requests = make([]Request, n)
		for i := range m.Requests {
			q := Request{Client: r.U32(), Kind: RequestKind(r.U8()), Part: r.U16(), Parts: r.U16()}
			if q.Kind < RequestFreeze || q.Kind > RequestResync || (q.Kind == RequestFullPart && q.Part >= q.Parts) {
				return invalid(r, "tick request")
			}
			m.Requests[i] = q
		}
	}
	return r.Err()
}

// appendIDs writes a list of client or bucket ids.
func appendIDs(b *wire.Builder, ids []uint32) {
	b.ArrayHeader(uint32(len(ids)))
	for _, id := range ids {
		b.Elem().U32(id)
	}
}

// parseIDs reads a list written by appendIDs, which must be strictly
// ascending.
func parseIDs(r *wire.Reader) ([]uint32, error) {
	n := listHeader(r, 4)
	if n == 0 {
		return nil, r.Err()
	}
	ids := make([]uint32, n)
	for i := range ids {
		ids[i] = r.U32()
		if r.Err() == nil && i > 0 && ids[i] <= ids[i-1] {
			return nil, invalid(r, "ids not strictly ascending")
		}
	}
	return ids, r.Err()
}
