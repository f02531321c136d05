// Package fogbench measures the fog-authoritative room's server cost and
// traffic: a fogauth.Room and one fogauth.Client core per player, bots
// playing from their clients' partial worlds, every message delivered at
// once (no network, no loss). One Game.Tick:
//
//	each client: bot orders from its partial world, Flush → Room.Step (Orders)        server: timed apart (orders)
//	                                                        → Room.Step (Ack)           server: timed as cost
//	Room.Simulate                                                                    the simulation: timed apart
//	Room.Publish: fog, deltas, accumulator, serialisation                            server: timed as cost
//	Ready → each client's Receive (client work, untimed) → Room.Advance
//
// BenchmarkServerTick is the Go benchmark; `tickwire bench fogauth` uses
// the same Game for its figures.
package fogbench
