package protocol

import (
	"encoding/binary"
	"math"
)

// decoder reads one packet.
type decoder struct {
	lim ProtocolLimits
	p   []byte
	off int
	err error
	st  deltaState
	// counts holds orders per player of the current tick once needed.
	counts map[PlayerID]int
}

// Decode implements OrderCodec. It returns a *DecodeError wrapping one of
// the package's sentinel errors for malformed input, enforces the codec's
// ProtocolLimits, and allocates only in proportion to the packet's length.
// On error dst is returned unchanged.
func (c NativeCodec) Decode(dst []TickOrders, packet []byte) ([]TickOrders, error) {
	lim := c.Limits.WithDefaults()
	if len(packet) > lim.MaxPacketSize {
		return dst, &DecodeError{0, ErrPacketTooLarge}
	}
	if len(packet) == 0 {
		return dst, &DecodeError{0, ErrTruncated}
	}
	h := packet[0]
	if uint16(h>>1) != c.version() || c.version() != NativeVersion {
		return dst, &DecodeError{0, ErrBadVersion}
	}
	d := decoder{lim: lim, p: packet, off: 1}
	out, err := d.packet(dst, h&headerContinues != 0)
	if err != nil {
		return dst, err
	}
	return out, nil
}

func (d *decoder) fail(err error) error {
	if d.err == nil {
		d.err = &DecodeError{d.off, err}
	}
	return d.err
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.p[d.off:])
	if !d.advance(n) {
		return 0
	}
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.p[d.off:])
	if !d.advance(n) {
		return 0
	}
	return v
}

// advance moves past a varint whose length binary.Uvarint or
// binary.Varint reported as n, or records why it is malformed.
func (d *decoder) advance(n int) bool {
	switch {
	case n == 0:
		d.fail(ErrTruncated)
		return false
	case n < 0:
		d.fail(ErrBadVarint)
		return false
	}
	d.off += n
	return true
}

// bounded reads a uvarint that must not exceed max.
func (d *decoder) bounded(max uint64) uint64 {
	v := d.uvarint()
	if v > max {
		d.fail(ErrValueRange)
		return 0
	}
	return v
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.p) {
		d.fail(ErrTruncated)
		return 0
	}
	b := d.p[d.off]
	d.off++
	return b
}

// pos reads a position (see appendPosMode).
func (d *decoder) pos() WorldPos {
	mode := d.byte()
	if d.err != nil {
		return WorldPos{}
	}
	if mode&^posModeMask != 0 || mode&posCentred != 0 && mode&(posRelative|posCells) != posCells {
		d.fail(ErrValueRange)
		return WorldPos{}
	}
	var base WorldPos
	if mode&posRelative != 0 {
		r := d.st.mem.get(d.st.player)
		if r == nil || !r.hasPos {
			d.fail(ErrNoPrevious)
			return WorldPos{}
		}
		base = r.pos
	}
	var v [3]int64
	v[0], v[1] = d.varint(), d.varint()
	if mode&posSameZ == 0 {
		v[2] = d.varint()
	}
	scale := int64(1)
	if mode&posCells != 0 {
		scale = int64(CellSize)
	}
	b := [3]int64{int64(base.X), int64(base.Y), int64(base.Z)}
	if mode&posCentred != 0 {
		b[0], b[1] = half, half
	}
	var out [3]SimCoord
	for i := range v {
		// A delta spans at most 2^32; bounding it first keeps the
		// multiplication by the scale from overflowing.
		if v[i] > 1<<33 || v[i] < -(1<<33) {
			d.fail(ErrValueRange)
			return WorldPos{}
		}
		c := b[i] + v[i]*scale
		if c > math.MaxInt32 || c < math.MinInt32 {
			d.fail(ErrValueRange)
			return WorldPos{}
		}
		out[i] = SimCoord(c)
	}
	return WorldPos{X: out[0], Y: out[1], Z: out[2]}
}

// packet decodes the tick groups of a packet whose header was read.
func (d *decoder) packet(dst []TickOrders, continues bool) ([]TickOrders, error) {
	out := dst
	var tick uint64
	first := true
	// A continuation packet adds orders to dst's last tick. They go to a
	// copy, stored back only once the whole packet decoded, so dst stays
	// unchanged on error.
	var cont TickOrders
	contAt := -1
	for d.off < len(d.p) {
		// Group start: an optional 'K', required for the first group.
		hasK := d.p[d.off] == tagTick
		if hasK {
			d.off++
			delta := d.uvarint()
			if d.err != nil {
				return dst, d.err
			}
			if first {
				tick = delta
			} else {
				if delta == 0 || tick > math.MaxUint64-delta {
					return dst, d.fail(ErrValueRange)
				}
				tick += delta
			}
		} else {
			if first {
				return dst, d.fail(ErrUnknownTag)
			}
			if tick == math.MaxUint64 {
				return dst, d.fail(ErrValueRange)
			}
			tick++
		}
		var g *TickOrders
		if first && continues {
			if len(out) == 0 || out[len(out)-1].Tick != tick {
				return dst, d.fail(ErrBadContinuation)
			}
			contAt = len(out) - 1
			cont = out[contAt]
			g = &cont
		} else {
			if len(out) > 0 && tick <= out[len(out)-1].Tick {
				return dst, d.fail(ErrTicksOutOfOrder)
			}
			out = append(out, TickOrders{Tick: tick})
			g = &out[len(out)-1]
		}
		first = false
		d.counts = nil
		end, err := d.orders(g)
		if err != nil {
			return dst, err
		}
		if end == tagContinue {
			if d.off != len(d.p) {
				return dst, d.fail(ErrUnknownTag)
			}
			break
		}
	}
	if first {
		return dst, d.fail(ErrTruncated)
	}
	if contAt >= 0 {
		out[contAt] = cont
	}
	return out, nil
}

// orders reads orders into g until the group's 'Z' or 'C', which it returns.
func (d *decoder) orders(g *TickOrders) (byte, error) {
	for {
		var seen uint8 // bit per tag: P, S, T
		for tagged := true; tagged; {
			t := d.byte()
			if d.err != nil {
				return 0, d.err
			}
			bit := tagBit(t)
			if seen&bit != 0 {
				return 0, d.fail(ErrUnknownTag) // a tag twice in one order
			}
			seen |= bit
			switch t {
			case tagEnd, tagContinue:
				if seen != 0 {
					return 0, d.fail(ErrUnknownTag) // tags without an order
				}
				return t, nil
			case tagPlayer:
				d.st.player = PlayerID(d.bounded(math.MaxUint16))
			case tagSubTick:
				d.st.subTick = uint32(d.bounded(math.MaxUint32))
			case tagType:
				d.st.kind = OrderKind(d.bounded(uint64(numOrderKinds - 1)))
				tagged = false
			case tagData:
				tagged = false
			default:
				return 0, d.fail(ErrUnknownTag)
			}
			if d.err != nil {
				return 0, d.err
			}
		}
		o, err := d.body()
		if err != nil {
			return 0, err
		}
		if err := d.admit(g); err != nil {
			return 0, err
		}
		d.st.mem.remember(d.st.player, o)
		g.Orders = append(g.Orders, TimestampedOrder{Player: d.st.player, Order: o, SubTickTime: d.st.subTick})
	}
}

// tagBit maps the per-order field tags to distinct bits.
func tagBit(t byte) uint8 {
	switch t {
	case tagPlayer:
		return 1
	case tagSubTick:
		return 2
	case tagType:
		return 4
	}
	return 0
}

// admit checks that one more order of the current player fits the tick's
// limits. Per-player counts are kept only once the tick holds enough orders
// for a player to reach the ceiling, and are built once from the orders
// already there (a continued tick brings some), so checking stays linear.
func (d *decoder) admit(g *TickOrders) error {
	if len(g.Orders) >= d.lim.MaxOrdersPerTick {
		return d.fail(ErrLimit)
	}
	if len(g.Orders) < d.lim.MaxOrdersPerPlayerPerTick {
		return nil
	}
	if d.counts == nil {
		d.counts = make(map[PlayerID]int)
		for i := range g.Orders {
			d.counts[g.Orders[i].Player]++
		}
	}
	if d.counts[d.st.player] >= d.lim.MaxOrdersPerPlayerPerTick {
		return d.fail(ErrLimit)
	}
	d.counts[d.st.player]++
	return nil
}

// body reads the order body of the current kind.
func (d *decoder) body() (PlayerOrder, error) {
	var o PlayerOrder
	switch d.st.kind {
	case KindIdle:
		o = Idle{}
	case KindMove:
		units := d.units()
		o = Move{Units: units, Target: d.pos()}
	case KindAttack:
		a := Attack{Units: d.units()}
		a.Target.Kind = TargetKind(d.byte())
		switch a.Target.Kind {
		case TargetEntity:
			a.Target.Entity = EntityID(d.bounded(math.MaxUint32))
		case TargetGround:
			a.Target.Pos = d.pos()
		default:
			d.fail(ErrValueRange)
		}
		o = a
	case KindBuild:
		s := StructureType(d.bounded(math.MaxUint16))
		o = Build{Structure: s, Pos: d.pos()}
	case KindSetRallyPoint:
		b := EntityID(d.bounded(math.MaxUint32))
		o = SetRallyPoint{Building: b, Pos: d.pos()}
	case KindSell:
		o = Sell{Building: EntityID(d.bounded(math.MaxUint32))}
	case KindCustom:
		k := uint16(d.bounded(math.MaxUint16))
		n := d.bounded(uint64(d.lim.MaxCustomPayload))
		if d.err == nil && n > uint64(len(d.p)-d.off) {
			d.fail(ErrTruncated)
		}
		var payload []byte
		if d.err == nil && n > 0 {
			payload = append([]byte(nil), d.p[d.off:d.off+int(n)]...)
			d.off += int(n)
		}
		o = Custom{Kind: k, Payload: payload}
	default:
		d.fail(ErrUnknownOrderKind)
	}
	if d.err != nil {
		return nil, d.err
	}
	return o, nil
}

// units reads a unit list (see encoder.appendUnits).
func (d *decoder) units() []EntityID {
	h := d.uvarint()
	if d.err != nil {
		return nil
	}
	if h == 0 {
		r := d.st.mem.get(d.st.player)
		if r == nil || !r.hasUnit {
			d.fail(ErrNoPrevious)
			return nil
		}
		return append([]EntityID(nil), r.units...)
	}
	n := h - 1
	if n > uint64(d.lim.MaxUnitsPerOrder) {
		d.fail(ErrLimit)
		return nil
	}
	if n > uint64(len(d.p)-d.off) { // every id takes at least one byte
		d.fail(ErrTruncated)
		return nil
	}
	var units []EntityID
	if n > 0 {
		units = make([]EntityID, n)
		units[0] = EntityID(d.bounded(math.MaxUint32))
		for i := 1; i < int(n); i++ {
			v := int64(units[i-1]) + d.varint()
			if v < 0 || v > math.MaxUint32 {
				d.fail(ErrValueRange)
				return nil
			}
			units[i] = EntityID(v)
		}
	}
	return units
}
