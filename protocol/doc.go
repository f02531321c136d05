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
//
// # Native order wire format (NativeCodec, version 1)
//
// A packet carries consecutive ticks of orders as delta-compressed TLV in the
// style of C&C Generals: one-byte ASCII tags, LEB128 varints (zigzag for
// signed values), and a field written only when it differs from the previous
// order in the same packet. Packets are at most ProtocolLimits.MaxPacketSize
// bytes (476 by default, one unfragmented minimum-MTU IP datagram).
//
//	packet   = header group+
//	header   = 1 byte: version<<1 | continues     (0x02, or 0x03)
//	group    = ['K' uvarint] order* ('Z' | 'C')
//	order    = ['P' uvarint] ['S' uvarint] ('T' uvarint body | 'D' body)
//
//	'K'  tick: absolute in a packet's first group, else the delta from the
//	     previous group's tick; omitted when the tick is the previous + 1,
//	     so an empty tick costs one byte ('Z')
//	'P'  player id                      \  written only when different from
//	'S'  sub-tick time, microseconds     >  the previous order in the packet
//	'T'  order kind, then its body      /   (the packet starts at 0, 0, Idle)
//	'D'  a body of the previous order's kind
//	'Z'  the tick is complete
//	'C'  the tick continues in the next packet, whose header has the
//	     continues bit set and whose first group repeats the tick in 'K'
//
// Bodies by kind (uv = uvarint, zz = zigzag varint):
//
//	Idle           (nothing)
//	Move           units pos
//	Attack         units kind:1 (0: entity uv | 1: pos)
//	Build          structure uv, pos
//	SetRallyPoint  building uv, pos
//	Sell           building uv
//	Custom         kind uv, length uv, payload
//
//	units  uv h: h = 0 repeats the player's previous unit list in the
//	       packet; otherwise h-1 ids follow, the first as uv and the rest
//	       as zz deltas from the id before
//	pos    mode:1, x zz, y zz, [z zz]; mode bits:
//	         1 relative: deltas from the player's previous position
//	         2 cells:    values are whole cells (× 1024)
//	         4 same z:   z omitted (0, or unchanged when relative)
//	         8 centred:  absolute cells naming cell centres (+512 on x, y)
//
// Decoding checks every length and count against the bytes that remain
// before allocating, enforces ProtocolLimits (orders per player per tick,
// unit ids per order, custom payload size, packet size) and reports the
// first problem as a *DecodeError wrapping a sentinel error.
package protocol
