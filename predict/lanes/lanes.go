// Package lanes maps package predict's lanes onto tickwire transport
// channels, for the client's network layer and the server's rooms alike:
//
//	predict lane     transport channel (transport.Lanes())   carries
//	LaneReliable     LaneOrders  reliable ordered, Critical   hello, events
//	LaneSequenced    LaneControl unreliable sequenced, Critical  inputs (redundant), pings, pongs, input acks
//	LaneUnreliable   LaneBulk    unreliable, fragmenting      snapshots
package lanes

import (
	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/transport"
)

// Channel is the transport channel of a predict lane.
func Channel(l predict.Lane) transport.ChannelID {
	switch l {
	case predict.LaneSequenced:
		return transport.LaneControl
	case predict.LaneUnreliable:
		return transport.LaneBulk
	}
	return transport.LaneOrders
}

// Channels are the transport channels a prediction connection uses,
// verbatim from transport.Lanes().
func Channels() []transport.ChannelConfig {
	var out []transport.ChannelConfig
	for _, c := range transport.Lanes() {
		switch c.ID {
		case transport.LaneOrders, transport.LaneControl, transport.LaneBulk:
			out = append(out, c)
		}
	}
	return out
}
