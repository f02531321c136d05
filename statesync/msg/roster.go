package msg

import "github.com/tickwire/tickwire/wire"

// Welcome tells a client its id and the first frame whose Tick it will
// receive. A bootstrap client starts from the engine's initial state and
// is ACTIVE at once; any other waits for FullState.
type Welcome struct {
	Client    uint32
	Frame     uint32
	TickHz    uint16
	Bootstrap bool
}

func (*Welcome) Type() wire.MessageType { return TypeWelcome }

func (m *Welcome) appendTo(b *wire.Builder) {
	b.U32(m.Client).U32(m.Frame).U16(m.TickHz).Bool(m.Bootstrap)
}

func (m *Welcome) parseFrom(r *wire.Reader) error {
	m.Client, m.Frame, m.TickHz, m.Bootstrap = r.U32(), r.U32(), r.U16(), r.Bool()
	return r.Err()
}

// ClientListUpdate is the versioned list of ACTIVE clients, the sender
// pool of the assignment.
type ClientListUpdate struct {
	Version uint32
	Clients []uint32 // strictly ascending
}

func (*ClientListUpdate) Type() wire.MessageType { return TypeClientListUpdate }

func (m *ClientListUpdate) appendTo(b *wire.Builder) {
	b.U32(m.Version)
	appendIDs(b, m.Clients)
}

func (m *ClientListUpdate) parseFrom(r *wire.Reader) error {
	m.Version = r.U32()
	var err error
	m.Clients, err = parseIDs(r)
	return err
}

// ReliabilityUpdate is the versioned table of reliability scores, 1.14
// fixed point (16384 is 1.0, the score of a client not listed).
type ReliabilityUpdate struct {
	Version uint32
	Scores  []Score // strictly ascending clients
}

// Score is one client's reliability score.
type Score struct {
	Client uint32
	Score  uint16
}

func (*ReliabilityUpdate) Type() wire.MessageType { return TypeReliabilityUpdate }

func (m *ReliabilityUpdate) appendTo(b *wire.Builder) {
	b.U32(m.Version).ArrayHeader(uint32(len(m.Scores)))
	for _, s := range m.Scores {
		b.Elem().U32(s.Client).U16(s.Score)
	}
}

func (m *ReliabilityUpdate) parseFrom(r *wire.Reader) error {
	m.Version = r.U32()
	if n := listHeader(r, 6); n > 0 {
		m.Scores = make([]Score, n)
		for i := range m.Scores {
			m.Scores[i] = Score{Client: r.U32(), Score: r.U16()}
			if r.Err() == nil && i > 0 && m.Scores[i].Client <= m.Scores[i-1].Client {
				return invalid(r, "scores not in ascending client order")
			}
		}
	}
	return r.Err()
}
