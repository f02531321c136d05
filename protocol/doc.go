// Package protocol holds the vocabulary shared by the simulation and the
// network layers, and nothing else: player and entity ids, fixed-point world
// positions, the PlayerOrder variants, TimestampedOrder and TickOrders, the
// protocol limits and the order codec.
//
// It is the only package the simulation and the networking packages have in
// common, and it imports only the standard library. It contains no floating
// point: sub-tick times are integer microseconds and positions are SimCoord
// fixed point (1024 units per cell), so every platform orders and compares
// them identically.
package protocol
