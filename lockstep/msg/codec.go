package msg

import (
	"errors"
	"fmt"
	"math"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/wire"
)

// Codec encodes and decodes relay messages. Orders inside OrderSubmit and
// TickFrame travel as protocol.NativeCodec packets with the codec's limits.
// The zero value uses the default protocol limits.
type Codec struct {
	Limits protocol.ProtocolLimits
}

func (c Codec) orders() protocol.NativeCodec { return protocol.NativeCodec{Limits: c.Limits} }

// Append appends m's encoding to dst. On error dst is returned unchanged.
func (c Codec) Append(dst []byte, m Message) ([]byte, error) {
	var b wire.Builder
	b.Reset(dst, m.Type())
	var err error
	switch m := m.(type) {
	case *OrderSubmit:
		b.Uvarint(m.Tick).Uvarint(m.SentUs).Uvarint(m.AckTick).U32(m.Token).Uvarint(uint64(m.AckDelayUs))
		err = c.appendOrders(&b, m.Tick, m.Orders)
	case *TickFrame:
		if m.Flags&^validFrameFlags != 0 {
			err = ErrRange
			break
		}
		// A busy tick of a large match exceeds the builder's default
		// limit; the codec's limits bound it instead.
		b.SetMaxSize(c.maxEncodedTickFrame(len(m.Removals)))
		b.Uvarint(m.Tick).U32(m.Token).U8(m.Flags).U8(m.RunAhead)
		b.ArrayHeader(uint32(len(m.Removals)))
		for _, r := range m.Removals {
			if r.Reason >= numReasons {
				err = ErrRange
			}
			b.Elem()
			appendRemoval(&b, r)
		}
		if err == nil {
			err = c.appendOrders(&b, m.Tick, m.Orders)
		}
	case *SyncHash:
		b.Uvarint(m.Tick).U64(m.Hash)
	case *TimingFeedback:
		b.Varint(int64(m.AvgArrivalDeltaUs)).Uvarint(uint64(m.LateCount)).
			Uvarint(uint64(m.JitterUs)).Varint(int64(m.RecommendedOffsetUs)).Uvarint(uint64(m.DeadlineUs))
	case *ClientMetrics:
		b.Uvarint(uint64(m.AvgLatencyUs)).U16(m.AvgFPS).I16(m.ArrivalCushion).Uvarint(uint64(m.TickProcessingUs))
	case *DesyncDetected:
		b.Uvarint(m.Tick)
	case *PlayerRemoved:
		if m.Reason >= numReasons {
			err = ErrRange
			break
		}
		appendRemoval(&b, m.Removal)
	case *LateNotice:
		b.Uvarint(m.Tick).Uvarint(uint64(m.LateByUs)).Uvarint(uint64(m.Strikes))
	case *CalibrationPing:
		b.U16(m.Seq).Uvarint(m.RelaySendUs)
	case *CalibrationPong:
		b.U16(m.Seq).Uvarint(m.RelaySendUs).Uvarint(m.ClientRecvUs).Uvarint(m.ClientSendUs)
	case *MatchTiming:
		b.Uvarint(uint64(m.TickIntervalUs)).U8(m.RunAhead).Uvarint(uint64(m.DeadlineUs)).
			Varint(m.ClockOffsetUs).Varint(int64(m.SubmitOffsetUs))
	case *SeedCommit:
		appendFixed(&b, m.Commitment[:])
	case *SeedCommitments:
		b.ArrayHeader(uint32(len(m.Commitments)))
		for i := range m.Commitments {
			b.Elem().Uvarint(uint64(m.Commitments[i].Player))
			appendFixed(&b, m.Commitments[i].Commitment[:])
		}
	case *SeedReveal:
		appendFixed(&b, m.Contribution[:])
		appendFixed(&b, m.Nonce[:])
	case *SeedResult:
		b.U64(m.Seed).Uvarint(m.StartUs)
	case paired:
		err = m.appendFields(&b)
	default:
		var ok bool
		if ok, err = appendRejoin(&b, m); !ok {
			return dst, &Error{Type: m.Type(), Err: ErrUnknownType}
		}
	}
	if err != nil {
		return dst, wrap(m.Type(), err)
	}
	out, err := b.Build()
	if err != nil {
		return dst, wrap(m.Type(), err)
	}
	return out, nil
}

func appendRemoval(b *wire.Builder, r Removal) {
	b.Uvarint(uint64(r.Player)).Uvarint(r.AtTick).U8(uint8(r.Reason))
}

func appendFixed(b *wire.Builder, p []byte) {
	for _, c := range p {
		b.U8(c)
	}
}

// appendOrders writes the orders of one tick as a count of NativeCodec
// packets followed by the length-prefixed packets; no orders is a count of
// zero.
func (c Codec) appendOrders(b *wire.Builder, tick uint64, orders []protocol.TimestampedOrder) error {
	if len(orders) == 0 {
		b.ArrayHeader(0)
		return nil
	}
	packets, err := c.orders().Encode(nil, []protocol.TickOrders{{Tick: tick, Orders: orders}})
	if err != nil {
		return err
	}
	b.ArrayHeader(uint32(len(packets)))
	for _, p := range packets {
		b.Elem().Bytes(p)
	}
	return nil
}

// wrap classifies an encoding or decoding failure.
func wrap(t wire.MessageType, err error) *Error {
	var pe *protocol.DecodeError
	switch {
	case errors.Is(err, ErrRange):
		return &Error{Type: t, Err: ErrRange}
	case errors.Is(err, ErrOrders), errors.As(err, &pe), isProtocolEncode(err):
		return &Error{Type: t, Err: ErrOrders, Cause: err}
	}
	return &Error{Type: t, Err: ErrMalformed, Cause: err}
}

// isProtocolEncode reports whether err comes from the order encoder.
func isProtocolEncode(err error) bool {
	for _, s := range []error{protocol.ErrLimit, protocol.ErrInvalidOrderValue, protocol.ErrUnknownOrderKind,
		protocol.ErrOrderTooLarge, protocol.ErrValueRange, protocol.ErrBadVersion} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// Decode decodes one message. It never panics, checks every count against
// the input before allocating, rejects trailing bytes, unknown flags and
// out-of-range values, and returns a *Error. Decoded messages do not alias
// b.
func (c Codec) Decode(b []byte) (Message, error) {
	r := wire.NewReader(b)
	t := r.Type()
	var m Message
	var err error
	switch t {
	case TypeOrderSubmit:
		s := &OrderSubmit{Tick: r.Uvarint(), SentUs: r.Uvarint(), AckTick: r.Uvarint(), Token: r.U32()}
		s.AckDelayUs = u32(r, &err)
		s.Orders = c.decodeOrders(r, s.Tick, &err)
		s.Size = len(b)
		m = s
	case TypeTickFrame:
		f := &TickFrame{Tick: r.Uvarint(), Token: r.U32(), Flags: r.U8(), RunAhead: r.U8()}
		if f.Flags&^validFrameFlags != 0 && r.Valid() {
			err = ErrRange
		}
		if n := r.ArrayHeader(); n > 0 {
			f.Removals = make([]Removal, n)
			for i := range f.Removals {
				f.Removals[i] = readRemoval(r, &err)
			}
		}
		f.Orders = c.decodeOrders(r, f.Tick, &err)
		m = f
	case TypeSyncHash:
		m = &SyncHash{Tick: r.Uvarint(), Hash: r.U64()}
	case TypeTimingFeedback:
		fb := &TimingFeedback{AvgArrivalDeltaUs: i32(r, &err)}
		fb.LateCount = u16(r, &err)
		fb.JitterUs = u32(r, &err)
		fb.RecommendedOffsetUs = i32(r, &err)
		fb.DeadlineUs = u32(r, &err)
		m = fb
	case TypeClientMetrics:
		cm := &ClientMetrics{AvgLatencyUs: u32(r, &err)}
		cm.AvgFPS = r.U16()
		cm.ArrivalCushion = r.I16()
		cm.TickProcessingUs = u32(r, &err)
		m = cm
	case TypeDesyncDetected:
		m = &DesyncDetected{Tick: r.Uvarint()}
	case TypePlayerRemoved:
		m = &PlayerRemoved{readRemoval(r, &err)}
	case TypeLateNotice:
		ln := &LateNotice{Tick: r.Uvarint()}
		ln.LateByUs = u32(r, &err)
		ln.Strikes = u16(r, &err)
		m = ln
	case TypeCalibrationPing:
		m = &CalibrationPing{Seq: r.U16(), RelaySendUs: r.Uvarint()}
	case TypeCalibrationPong:
		m = &CalibrationPong{Seq: r.U16(), RelaySendUs: r.Uvarint(), ClientRecvUs: r.Uvarint(), ClientSendUs: r.Uvarint()}
	case TypeMatchTiming:
		mt := &MatchTiming{TickIntervalUs: u32(r, &err), RunAhead: r.U8()}
		mt.DeadlineUs = u32(r, &err)
		mt.ClockOffsetUs = r.Varint()
		mt.SubmitOffsetUs = i32(r, &err)
		m = mt
	case TypeSeedCommit:
		sc := &SeedCommit{}
		readFixed(r, sc.Commitment[:])
		m = sc
	case TypeSeedCommitments:
		sc := &SeedCommitments{}
		// Each entry is at least 33 bytes: check before allocating.
		if n := r.ArrayHeader(); n > 0 {
			if uint64(n)*33 > uint64(r.Remaining()) {
				err = wire.ErrTooLarge
				break
			}
			sc.Commitments = make([]Commitment, n)
			for i := range sc.Commitments {
				sc.Commitments[i].Player = u16Player(r, &err)
				readFixed(r, sc.Commitments[i].Commitment[:])
			}
		}
		m = sc
	case TypeSeedReveal:
		sr := &SeedReveal{}
		readFixed(r, sr.Contribution[:])
		readFixed(r, sr.Nonce[:])
		m = sr
	case TypeSeedResult:
		m = &SeedResult{Seed: r.U64(), StartUs: r.Uvarint()}
	default:
		if newPaired, ok := pairedTypes[t]; ok && r.Valid() {
			pm := newPaired()
			err, m = pm.parseFields(r), pm
			break
		}
		if r.Err() != nil {
			return nil, &Error{Err: ErrMalformed, Cause: r.Err()}
		}
		var ok bool
		if m, ok = decodeRejoin(r, t, &err); !ok {
			return nil, &Error{Type: t, Err: ErrUnknownType}
		}
	}
	if err == nil {
		err = r.Finish()
	}
	if err != nil {
		return nil, wrap(t, err)
	}
	return m, nil
}

// decodeOrders reads the packets written by appendOrders and returns the
// orders of tick. The packets must carry exactly that tick and at least one
// order.
func (c Codec) decodeOrders(r *wire.Reader, tick uint64, errp *error) []protocol.TimestampedOrder {
	n := r.ArrayHeader()
	if n == 0 || !r.Valid() || *errp != nil {
		return nil
	}
	// The per-player ceiling is checked once for the whole tick below:
	// NativeCodec.Decode, seeing one packet at a time, would recount a
	// continued tick's orders at every packet, quadratic in the packets.
	codec := c.orders()
	lim := codec.Limits.WithDefaults()
	codec.Limits = lim
	codec.Limits.MaxOrdersPerPlayerPerTick = lim.MaxOrdersPerTick
	var ticks []protocol.TickOrders
	for range n {
		p := r.Bytes()
		if !r.Valid() {
			return nil
		}
		var err error
		if ticks, err = codec.Decode(ticks, p); err != nil {
			*errp = err
			return nil
		}
	}
	if len(ticks) != 1 || ticks[0].Tick != tick || len(ticks[0].Orders) == 0 {
		*errp = ErrOrders
		return nil
	}
	if err := perPlayerCeiling(ticks[0].Orders, lim.MaxOrdersPerPlayerPerTick); err != nil {
		*errp = err
		return nil
	}
	return ticks[0].Orders
}

// perPlayerCeiling checks that no player has more than ceiling orders.
func perPlayerCeiling(orders []protocol.TimestampedOrder, ceiling int) error {
	if len(orders) <= ceiling {
		return nil
	}
	counts := make(map[protocol.PlayerID]int)
	for i := range orders {
		p := orders[i].Player
		if counts[p]++; counts[p] > ceiling {
			return fmt.Errorf("%w: player %d has more than %d orders in the tick", protocol.ErrLimit, p, ceiling)
		}
	}
	return nil
}

func readRemoval(r *wire.Reader, errp *error) Removal {
	rm := Removal{Player: u16Player(r, errp), AtTick: r.Uvarint(), Reason: RemovalReason(r.U8())}
	if rm.Reason >= numReasons && r.Valid() && *errp == nil {
		*errp = ErrRange
	}
	return rm
}

func readFixed(r *wire.Reader, p []byte) {
	for i := range p {
		p[i] = r.U8()
	}
}

// rangeCheck reads a uvarint and records ErrRange if it exceeds max.
func rangeCheck(r *wire.Reader, max uint64, errp *error) uint64 {
	v := r.Uvarint()
	if v > max && r.Valid() && *errp == nil {
		*errp = ErrRange
		return 0
	}
	return v
}

func u16(r *wire.Reader, errp *error) uint16 { return uint16(rangeCheck(r, math.MaxUint16, errp)) }
func u32(r *wire.Reader, errp *error) uint32 { return uint32(rangeCheck(r, math.MaxUint32, errp)) }

func u16Player(r *wire.Reader, errp *error) protocol.PlayerID {
	return protocol.PlayerID(rangeCheck(r, math.MaxUint16, errp))
}

func i32(r *wire.Reader, errp *error) int32 {
	v := r.Varint()
	if (v < math.MinInt32 || v > math.MaxInt32) && r.Valid() && *errp == nil {
		*errp = ErrRange
		return 0
	}
	return int32(v)
}
