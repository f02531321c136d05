package protocol

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Tags of the native delta-compressed TLV format. Each is one ASCII byte.
const (
	tagTick     = 'K' // uvarint: tick delta from the previous tick group
	tagPlayer   = 'P' // uvarint: player id
	tagSubTick  = 'S' // uvarint: sub-tick time in microseconds
	tagType     = 'T' // uvarint order kind, then the body; ends the order
	tagData     = 'D' // body of the previous order's kind; ends the order
	tagEnd      = 'Z' // the tick group is complete
	tagContinue = 'C' // the tick group continues in the next packet
)

// NativeVersion is the newest version of the native format.
const NativeVersion = 1

// nativeProtocolBase is "TW" in the high bytes; the low 16 bits hold the version.
const nativeProtocolBase ProtocolID = 0x5457 << 16

// Header byte flag of a packet that continues the previous packet's last tick.
const headerContinues = 1

// maxGroupOverhead is the worst-case bytes a tick group needs besides its
// orders: 'K' plus a 10-byte varint, and the closing 'Z' or 'C'.
const maxGroupOverhead = 1 + binary.MaxVarintLen64 + 1

// NativeCodec is tickwire's order wire format: delta-compressed TLV in the
// style of C&C Generals. The zero value is version 1 with default limits.
// See the package documentation for the layout.
type NativeCodec struct {
	// Version is the format version; 0 means NativeVersion.
	Version uint16
	// Limits bounds packet size and order contents; zero fields take the
	// defaults.
	Limits ProtocolLimits
}

// ProtocolID implements OrderCodec.
func (c NativeCodec) ProtocolID() ProtocolID {
	return nativeProtocolBase | ProtocolID(c.version())
}

func (c NativeCodec) version() uint16 {
	if c.Version == 0 {
		return NativeVersion
	}
	return c.Version
}

func (c NativeCodec) header(continues bool) byte {
	h := byte(c.version() << 1)
	if continues {
		h |= headerContinues
	}
	return h
}

// deltaState is what a packet's previous order left behind: a field equal to
// it is not written again. It resets at every packet.
type deltaState struct {
	player  PlayerID
	subTick uint32
	kind    OrderKind
	mem     playerMemory
}

// playerMemory remembers, per player, the last unit list and position
// written in the packet: an order repeating its selection writes one byte
// instead of the list, and positions are written relative to the last one.
type playerMemory []recall

type recall struct {
	player  PlayerID
	units   []EntityID
	hasUnit bool
	pos     WorldPos
	hasPos  bool
}

// get returns the player's entry, or nil.
func (m playerMemory) get(p PlayerID) *recall {
	for i := range m {
		if m[i].player == p {
			return &m[i]
		}
	}
	return nil
}

// entry returns the player's entry, adding it if needed.
func (m *playerMemory) entry(p PlayerID) *recall {
	if r := m.get(p); r != nil {
		return r
	}
	*m = append(*m, recall{player: p})
	return &(*m)[len(*m)-1]
}

// encoder carries the state of one Encode call.
type encoder struct {
	c       NativeCodec
	lim     ProtocolLimits
	out     [][]byte
	pkt     []byte
	st      deltaState
	scratch []byte
	// posScratch holds the absolute encoding while appendPos compares.
	posScratch []byte
}

// Encode implements OrderCodec.
func (c NativeCodec) Encode(dst [][]byte, ticks []TickOrders) ([][]byte, error) {
	if v := c.version(); v != NativeVersion {
		return dst, fmt.Errorf("%w: %d", ErrBadVersion, v)
	}
	e := encoder{c: c, lim: c.Limits.WithDefaults(), out: dst}
	if e.lim.MaxPacketSize < 1+maxGroupOverhead+1 {
		return dst, fmt.Errorf("%w: MaxPacketSize %d", ErrValueRange, e.lim.MaxPacketSize)
	}
	havePrev := false
	var prev uint64
	for i := range ticks {
		t := &ticks[i]
		if havePrev && t.Tick <= prev {
			return dst, fmt.Errorf("%w: tick %d after %d", ErrTicksOutOfOrder, t.Tick, prev)
		}
		if err := e.group(t, prev, havePrev); err != nil {
			return dst, err
		}
		prev, havePrev = t.Tick, true
	}
	if e.pkt != nil {
		e.out = append(e.out, e.pkt)
	}
	return e.out, nil
}

// newPacket starts a packet, reusing a buffer from the spare capacity of the
// output slice when there is one.
func (e *encoder) newPacket(continues bool) {
	if e.pkt != nil {
		e.out = append(e.out, e.pkt)
	}
	var buf []byte
	if n := len(e.out); n < cap(e.out) {
		buf = e.out[:n+1][n][:0]
	}
	if cap(buf) < e.lim.MaxPacketSize {
		buf = make([]byte, 0, e.lim.MaxPacketSize)
	}
	e.pkt = append(buf, e.c.header(continues))
	e.st = deltaState{mem: e.st.mem[:0]}
}

// group writes one tick group: an optional 'K', the orders, then 'Z'.
func (e *encoder) group(t *TickOrders, prev uint64, havePrev bool) error {
	if e.pkt == nil || len(e.pkt)+maxGroupOverhead > e.lim.MaxPacketSize {
		e.newPacket(false)
	}
	groupStart := len(e.pkt)
	first := len(e.pkt) == 1
	if first || !havePrev || t.Tick != prev+1 {
		base := prev
		if first {
			base = 0
		}
		e.pkt = append(e.pkt, tagTick)
		e.pkt = binary.AppendUvarint(e.pkt, t.Tick-base)
	}
	ordersInPacket := 0
	if err := e.checkPlayerCounts(t); err != nil {
		return err
	}
	for i := range t.Orders {
		o := &t.Orders[i]
		if err := e.checkOrder(o); err != nil {
			return err
		}
		enc := e.appendOrder(e.scratch[:0], o)
		e.scratch = enc
		if len(e.pkt)+len(enc)+1 > e.lim.MaxPacketSize {
			switch {
			case ordersInPacket > 0:
				// Split the tick: close this packet with 'C' and carry on.
				e.pkt = append(e.pkt, tagContinue)
				e.newPacket(true)
			case groupStart > 1:
				// Nothing of this tick written yet: move the whole group.
				e.pkt = e.pkt[:groupStart]
				e.newPacket(false)
			default:
				return fmt.Errorf("%w: %d bytes", ErrOrderTooLarge, len(enc))
			}
			e.pkt = append(e.pkt, tagTick)
			e.pkt = binary.AppendUvarint(e.pkt, t.Tick)
			groupStart = 1
			enc = e.appendOrder(e.scratch[:0], o)
			e.scratch = enc
			if len(e.pkt)+len(enc)+1 > e.lim.MaxPacketSize {
				return fmt.Errorf("%w: %d bytes", ErrOrderTooLarge, len(enc))
			}
			ordersInPacket = 0
		}
		e.pkt = append(e.pkt, enc...)
		e.commit(o)
		ordersInPacket++
	}
	e.pkt = append(e.pkt, tagEnd)
	return nil
}

// checkPlayerCounts enforces the per-player order ceiling on the sender side,
// so an encoder never produces what a decoder must reject.
func (e *encoder) checkPlayerCounts(t *TickOrders) error {
	if len(t.Orders) > e.lim.MaxOrdersPerTick {
		return fmt.Errorf("%w: %d orders in tick %d > %d", ErrLimit, len(t.Orders), t.Tick, e.lim.MaxOrdersPerTick)
	}
	if len(t.Orders) <= e.lim.MaxOrdersPerPlayerPerTick {
		return nil
	}
	counts := make(map[PlayerID]int)
	for i := range t.Orders {
		p := t.Orders[i].Player
		counts[p]++
		if counts[p] > e.lim.MaxOrdersPerPlayerPerTick {
			return fmt.Errorf("%w: player %d has more than %d orders in tick %d",
				ErrLimit, p, e.lim.MaxOrdersPerPlayerPerTick, t.Tick)
		}
	}
	return nil
}

func (e *encoder) checkOrder(o *TimestampedOrder) error {
	switch v := o.Order.(type) {
	case nil:
		return fmt.Errorf("%w: nil order from player %d", ErrInvalidOrderValue, o.Player)
	case Move:
		return e.checkUnits(len(v.Units))
	case Attack:
		if v.Target.Kind > TargetGround {
			return fmt.Errorf("%w: target kind %d", ErrInvalidOrderValue, v.Target.Kind)
		}
		return e.checkUnits(len(v.Units))
	case Custom:
		if len(v.Payload) > e.lim.MaxCustomPayload {
			return fmt.Errorf("%w: custom payload %d bytes > %d", ErrLimit, len(v.Payload), e.lim.MaxCustomPayload)
		}
	case Idle, Build, SetRallyPoint, Sell:
	default:
		return fmt.Errorf("%w: %T", ErrUnknownOrderKind, v)
	}
	return nil
}

func (e *encoder) checkUnits(n int) error {
	if n > e.lim.MaxUnitsPerOrder {
		return fmt.Errorf("%w: %d unit ids > %d", ErrLimit, n, e.lim.MaxUnitsPerOrder)
	}
	return nil
}

// appendOrder appends o's tags and body, given the packet's delta state,
// without changing that state.
func (e *encoder) appendOrder(b []byte, o *TimestampedOrder) []byte {
	kind := o.Order.OrderKind()
	if o.Player != e.st.player {
		b = append(b, tagPlayer)
		b = binary.AppendUvarint(b, uint64(o.Player))
	}
	if o.SubTickTime != e.st.subTick {
		b = append(b, tagSubTick)
		b = binary.AppendUvarint(b, uint64(o.SubTickTime))
	}
	if kind != e.st.kind {
		b = append(b, tagType)
		b = binary.AppendUvarint(b, uint64(kind))
	} else {
		b = append(b, tagData)
	}
	switch v := o.Order.(type) {
	case Move:
		b = e.appendUnits(b, o.Player, v.Units)
		b = e.appendPos(b, o.Player, v.Target)
	case Attack:
		b = e.appendUnits(b, o.Player, v.Units)
		b = append(b, byte(v.Target.Kind))
		if v.Target.Kind == TargetEntity {
			b = binary.AppendUvarint(b, uint64(v.Target.Entity))
		} else {
			b = e.appendPos(b, o.Player, v.Target.Pos)
		}
	case Build:
		b = binary.AppendUvarint(b, uint64(v.Structure))
		b = e.appendPos(b, o.Player, v.Pos)
	case SetRallyPoint:
		b = binary.AppendUvarint(b, uint64(v.Building))
		b = e.appendPos(b, o.Player, v.Pos)
	case Sell:
		b = binary.AppendUvarint(b, uint64(v.Building))
	case Custom:
		b = binary.AppendUvarint(b, uint64(v.Kind))
		b = binary.AppendUvarint(b, uint64(len(v.Payload)))
		b = append(b, v.Payload...)
	}
	return b
}

// commit records o as the packet's previous order.
func (e *encoder) commit(o *TimestampedOrder) {
	e.st.player = o.Player
	e.st.subTick = o.SubTickTime
	e.st.kind = o.Order.OrderKind()
	e.st.mem.remember(o.Player, o.Order)
}

// remember records the unit list and position of player's order o.
func (m *playerMemory) remember(player PlayerID, o PlayerOrder) {
	units, hasUnits, pos, hasPos := orderFields(o)
	if !hasUnits && !hasPos {
		return
	}
	r := m.entry(player)
	if hasUnits {
		r.units, r.hasUnit = units, true
	}
	if hasPos {
		r.pos, r.hasPos = pos, true
	}
}

// orderFields returns the unit list and position an order carries, the
// fields the per-player memory tracks.
func orderFields(o PlayerOrder) (units []EntityID, hasUnits bool, pos WorldPos, hasPos bool) {
	switch v := o.(type) {
	case Move:
		return v.Units, true, v.Target, true
	case Attack:
		return v.Units, true, v.Target.Pos, v.Target.Kind == TargetGround
	case Build:
		return nil, false, v.Pos, true
	case SetRallyPoint:
		return nil, false, v.Pos, true
	}
	return nil, false, WorldPos{}, false
}

// appendUnits writes a unit list: uvarint h, where h = 0 repeats the
// player's previous list in this packet and h = n+1 introduces n ids, the
// first as a uvarint and the rest as zigzag deltas from their predecessor.
func (e *encoder) appendUnits(b []byte, p PlayerID, units []EntityID) []byte {
	if r := e.st.mem.get(p); r != nil && r.hasUnit && len(units) > 0 && slices.Equal(r.units, units) {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(units))+1)
	for i, id := range units {
		if i == 0 {
			b = binary.AppendUvarint(b, uint64(id))
			continue
		}
		b = binary.AppendVarint(b, int64(id)-int64(units[i-1]))
	}
	return b
}

// Position modes: a mode byte, then x, y and (unless posSameZ) z as zigzag
// varints.
const (
	posRelative = 1 << iota // values are deltas from the player's previous position
	posCells                // values are whole cells (multiply by CellSize)
	posSameZ                // z is omitted: 0, or unchanged when relative
	posCentred              // absolute cells: x and y are cell centres
	posModeMask = posRelative | posCells | posSameZ | posCentred
)

// half is the offset of a cell's centre from its corner.
const half = int64(CellSize / 2)

// appendPos writes p in the shortest of the position modes: absolute, or
// relative to the player's previous position in the packet when it has one.
func (e *encoder) appendPos(b []byte, player PlayerID, p WorldPos) []byte {
	abs := appendPosMode(e.posScratch[:0], 0, WorldPos{}, p)
	e.posScratch = abs
	if r := e.st.mem.get(player); r != nil && r.hasPos {
		n := len(b)
		b = appendPosMode(b, posRelative, r.pos, p)
		if len(b)-n <= len(abs) {
			return b
		}
		b = b[:n]
	}
	return append(b, abs...)
}

func appendPosMode(b []byte, mode byte, base, p WorldPos) []byte {
	d := [3]int64{int64(p.X) - int64(base.X), int64(p.Y) - int64(base.Y), int64(p.Z) - int64(base.Z)}
	const cell = int64(CellSize)
	switch {
	case mode&posRelative == 0 && (d[0]-half)%cell == 0 && (d[1]-half)%cell == 0 && d[2]%cell == 0:
		mode |= posCentred | posCells
		d = [3]int64{(d[0] - half) / cell, (d[1] - half) / cell, d[2] / cell}
	case d[0]%cell == 0 && d[1]%cell == 0 && d[2]%cell == 0:
		mode |= posCells
		d = [3]int64{d[0] / cell, d[1] / cell, d[2] / cell}
	}
	if d[2] == 0 {
		mode |= posSameZ
	}
	b = append(b, mode)
	b = binary.AppendVarint(b, d[0])
	b = binary.AppendVarint(b, d[1])
	if mode&posSameZ == 0 {
		b = binary.AppendVarint(b, d[2])
	}
	return b
}
