// Package impair adds a simulated network path (package netsim's Path:
// latency and loss, seeded) between a prediction client and its network
// layer, both ways, so a browser visitor can turn the latency up and watch
// prediction and reconciliation at work. It wraps any predict.Network;
// it is pure logic driven by the now its caller passes.
//
// Loss applies only to what travels on unreliable lanes: upward to
// messages sent on predict.LaneSequenced and predict.LaneUnreliable,
// downward to every message type but the hello and events (which the
// reliable lane carries). Delay applies to all, in order.
package impair
