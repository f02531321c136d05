// Package lanes is how relay lockstep uses the transport: the channels of
// a relay connection, their limits, and the lane each lockstep/msg message
// travels on. The relay server (server) and the lockstep client
// (lockstep) both import it, so neither imports the other.
//
// Every connection to a tickwire server, whatever its room's network
// model, has these three lanes and nothing else (the transport handshake
// requires both ends to configure the same channels, and a client does
// not know before it joins which model its room plays); a channel no
// model uses would only be something more a peer could send on:
//
//	lane     id  reliability           fragments  messages
//	Orders   1   reliable ordered      yes        lockstep: every message not on Control;
//	                                              other models: their reliable messages
//	Control  2   unreliable sequenced  no         CalibrationPing, CalibrationPong,
//	                                              ClientMetrics; other models: pings,
//	                                              acknowledgements, redundant inputs
//	State    3   unreliable            yes        fog StateUpdates, prediction snapshots,
//	                                              state-sync partitions (≤ 256 KiB, zstd
//	                                              above 1 KiB); lockstep never uses it
//
// Both are Critical. The orders lane fragments so that any tick the
// relay's limits allow can be delivered: a TickFrame holds every player's
// orders of a tick, and at 64 players with 256 orders each it is several
// megabytes (MaxMessageSize bounds it, see lockstep/msg's MaxTickFrameSize).
// A message that fits one datagram, such as every ordinary tick frame and
// every order submission, is sent unfragmented, as before; only a frame
// that does not fit is split into fragments and reassembled by the
// receiver's transport.
//
// TransportConfig is the configuration both ends must use. Its flush
// interval batches a tick's messages, and acknowledgements wait up to
// DefaultAckDelay, longer than a tick interval: relay traffic flows both
// ways every tick, so each acknowledgement rides on the next tick frame or
// order submission instead of a datagram of its own.
package lanes
