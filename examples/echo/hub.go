package echo

import "github.com/tickwire/tickwire/protocol"

// Hub is the echo room's pure core: who is in the room and what each
// message becomes. It has no socket, no clock and no goroutine: the room
// shell (room.go) hands it what the seats sent and sends what it
// returns, so a test drives it with plain calls.
//
// Step and Leave queue envelopes; Ready returns them and Advance
// releases them (the pattern of every tickwire core: output waits until
// the shell took it).
type Hub struct {
	players []protocol.PlayerID // by seat index
	live    []bool
	out     []Envelope
	stats   HubStats
}

// Envelope is one message to one seat (an index of the room's seats).
type Envelope struct {
	To   int
	Data []byte
}

// HubStats are a hub's counters.
type HubStats struct {
	// Said counts the Says echoed, Refused the messages that were not a
	// valid Say (dropped, nothing sent), Left the seats gone.
	Said, Refused, Left uint64
}

// NewHub is the core of a room whose seat i plays as players[i]: every
// seat is live, and each is sent a Start.
func NewHub(players []protocol.PlayerID) *Hub {
	h := &Hub{players: players, live: make([]bool, len(players))}
	start, _ := (&Start{Players: uint8(len(players))}).Append(nil) // a Start always encodes
	for i := range players {
		h.live[i] = true
		h.out = append(h.out, Envelope{To: i, Data: start})
	}
	return h
}

// Step takes a message seat sent: a valid Say is echoed, with its
// sender, to every live seat; anything else is counted, dropped and
// returned as an error wrapping ErrMessage. A seat that left or out of
// range is ignored.
func (h *Hub) Step(seat int, data []byte) error {
	if seat < 0 || seat >= len(h.live) || !h.live[seat] {
		return nil
	}
	say, err := ParseSay(data)
	if err != nil {
		h.stats.Refused++
		return err
	}
	echo, err := (&Echo{From: uint16(h.players[seat]), Say: say}).Append(nil)
	if err != nil {
		h.stats.Refused++
		return err
	}
	h.stats.Said++
	for i, ok := range h.live {
		if ok {
			h.out = append(h.out, Envelope{To: i, Data: echo}) // one encoding, shared
		}
	}
	return nil
}

// Leave takes seat out of the room: nothing more is sent to it.
func (h *Hub) Leave(seat int) {
	if seat >= 0 && seat < len(h.live) && h.live[seat] {
		h.live[seat] = false
		h.stats.Left++
	}
}

// Live is the number of seats still in the room; the room ends at 0.
func (h *Hub) Live() int { return len(h.live) - int(h.stats.Left) }

// Ready is what to send, in order, since the last Advance.
func (h *Hub) Ready() []Envelope { return h.out }

// Advance releases what Ready returned.
func (h *Hub) Advance() {
	clear(h.out)
	h.out = h.out[:0]
}

// Stats returns the hub's counters.
func (h *Hub) Stats() HubStats { return h.stats }
