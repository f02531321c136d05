// Package relaybench measures the relay core's cost per game tick: a
// 4-player relay.Core in the playing phase, default filter chain, each
// player submitting one order per tick window.
//
// One game tick, as Game.Tick runs it:
//
//	4 × Core.Step(OrderSubmit)  validation → normalisation → rate control →
//	                            anti-cheat → forward (one order each)
//	Core.NextDeadline, Core.Tick(deadline)   finalise: Idle fill, sort,
//	                            liveness token, TickFrame broadcast
//	Core.Ready, Core.Advance    drain what to send
//	(every sync tick: 4 × Core.Step(SyncHash); every 30 ticks: feedback and
//	QoS evaluation)
//
// BenchmarkCoreTick (in the package's tests) drives a Game; Run gives the
// same figure to a command (`tickwire bench relay`). Neither touches a
// socket; time is virtual. The package imports no test code: the binary
// links it (internal/layering checks that the binary links no package
// testing).
package relaybench
