// Package lanes maps package predict's lanes onto the lanes of a
// connection to a tickwire server (server/lanes), for the client's network
// layer and the server's rooms alike:
//
//	predict lane     server lane (server/lanes)           carries
//	LaneReliable     Orders   reliable ordered, Critical   hello, events
//	LaneSequenced    Control  unreliable sequenced, Critical  inputs (redundant), pings, pongs, input acks
//	LaneUnreliable   State    unreliable, fragmenting      snapshots
package lanes

import (
	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// Channel is the transport channel of a predict lane.
func Channel(l predict.Lane) transport.ChannelID {
	switch l {
	case predict.LaneSequenced:
		return lanes.Control
	case predict.LaneUnreliable:
		return lanes.State
	}
	return lanes.Orders
}

// Channels are the transport channels a prediction connection uses: the
// server's lanes.
func Channels() []transport.ChannelConfig { return lanes.Channels() }
