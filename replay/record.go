package replay

import (
	"crypto/ed25519"
	"encoding/binary"
	"fmt"

	"github.com/tickwire/tickwire/protocol"
)

// Record kinds: the first byte of every record after the header.
const (
	kindFrame     = 0x01
	kindQos       = 0x02
	kindSync      = 0x03
	kindLost      = 0x04
	kindSignature = 0x05
	kindFooter    = 0x06
	kindInput     = 0x07
)

// Flags of the footer.
const (
	// FlagIncomplete marks a replay the writer lost records of: playable
	// up to its first gap, never ranked-verifiable.
	FlagIncomplete = 1 << iota
)

// QosEvent is a change of the match-global timing (the relay's QoS
// adaptation), recorded so fairness disputes can be audited.
type QosEvent struct {
	Tick                         uint64
	OldDeadlineUs, NewDeadlineUs uint32
	OldRunAhead, NewRunAhead     uint8
	LateRateBps                  uint16
	Reason                       uint8 // 0 raise on late rate, 1 lower on a stable window
}

// SyncHash is the state hash every client agreed on after Tick (lockstep,
// state sync), or the server's own (fog, prediction).
type SyncHash struct {
	Tick, Hash uint64
}

// Gap is Count records the background writer lost, the first of them at
// Tick: the chain stays whole, the replay is incomplete.
type Gap struct {
	Tick  uint64 `json:"tick"`
	Count uint64 `json:"count"`
}

// Input is one player's input of a tick in a model's own encoding (a
// prediction server's input commands).
type Input struct {
	Tick   uint64
	Player uint16
	Data   []byte
}

// Footer closes a finished replay.
type Footer struct {
	// Ticks is the number of ticks played. FinalHash is the last state
	// hash known, after tick FinalTick: the last the players agreed on
	// (lockstep, state sync) or the server's own after the last tick (fog,
	// prediction); 0 and 0 if none is known.
	Ticks     uint64
	FinalTick uint64
	FinalHash uint64
	// Flags is a set of Flag constants; LostFrames the frames the
	// background writer lost.
	Flags      uint8
	LostFrames uint64
}

// Incomplete reports whether the writer lost records.
func (f Footer) Incomplete() bool { return f.Flags&FlagIncomplete != 0 }

// frameCodec encodes a frame's orders: the native TLV order codec with a
// packet limit large enough that a tick of normal play takes one packet.
func frameCodec() protocol.NativeCodec {
	return protocol.NativeCodec{Limits: protocol.ProtocolLimits{MaxPacketSize: 64 << 10}}
}

// appendRecord appends kind, the body's length and the body that body
// appends.
func appendRecord(b []byte, kind byte, body func([]byte) []byte) []byte {
	b = append(b, kind)
	start := len(b)
	b = append(b, make([]byte, binary.MaxVarintLen32)...)
	b = body(b)
	n := len(b) - start - binary.MaxVarintLen32
	var l [binary.MaxVarintLen32]byte
	k := binary.PutUvarint(l[:], uint64(n))
	copy(b[start:], l[:k])
	return append(b[:start+k], b[start+binary.MaxVarintLen32:]...)
}

func appendFrame(b []byte, packets [][]byte, tick uint64) []byte {
	return appendRecord(b, kindFrame, func(b []byte) []byte {
		b = binary.AppendUvarint(b, tick)
		b = binary.AppendUvarint(b, uint64(len(packets)))
		for _, p := range packets {
			b = binary.AppendUvarint(b, uint64(len(p)))
			b = append(b, p...)
		}
		return b
	})
}

func parseFrame(d *dec, scratch []protocol.TickOrders) (protocol.TickOrders, error) {
	tick := d.uvarint("frame tick")
	n := d.count("frame packets", 1)
	scratch = scratch[:0]
	for range n {
		p := d.bytes("frame packet")
		if d.err != nil {
			break
		}
		var err error
		if scratch, err = frameCodec().Decode(scratch, p); err != nil {
			return protocol.TickOrders{}, fmt.Errorf("%w: frame %d: %v", ErrCorrupt, tick, err)
		}
	}
	if err := d.done("frame"); err != nil {
		return protocol.TickOrders{}, err
	}
	if len(scratch) != 1 || scratch[0].Tick != tick {
		return protocol.TickOrders{}, fmt.Errorf("%w: frame %d does not carry exactly its tick", ErrCorrupt, tick)
	}
	return scratch[0], nil
}

func appendQos(b []byte, e QosEvent) []byte {
	return appendRecord(b, kindQos, func(b []byte) []byte {
		b = binary.AppendUvarint(b, e.Tick)
		b = binary.LittleEndian.AppendUint32(b, e.OldDeadlineUs)
		b = binary.LittleEndian.AppendUint32(b, e.NewDeadlineUs)
		b = append(b, e.OldRunAhead, e.NewRunAhead)
		b = binary.LittleEndian.AppendUint16(b, e.LateRateBps)
		return append(b, e.Reason)
	})
}

func parseQos(d *dec) (QosEvent, error) {
	e := QosEvent{Tick: d.uvarint("qos tick"), OldDeadlineUs: d.u32("qos"), NewDeadlineUs: d.u32("qos"),
		OldRunAhead: d.u8("qos"), NewRunAhead: d.u8("qos"), LateRateBps: d.u16("qos"), Reason: d.u8("qos")}
	return e, d.done("qos")
}

func appendSync(b []byte, s SyncHash) []byte {
	return appendRecord(b, kindSync, func(b []byte) []byte {
		b = binary.AppendUvarint(b, s.Tick)
		return binary.LittleEndian.AppendUint64(b, s.Hash)
	})
}

func parseSync(d *dec) (SyncHash, error) {
	s := SyncHash{Tick: d.uvarint("sync tick"), Hash: d.u64("sync hash")}
	return s, d.done("sync")
}

func appendGap(b []byte, g Gap) []byte {
	return appendRecord(b, kindLost, func(b []byte) []byte {
		b = binary.AppendUvarint(b, g.Tick)
		return binary.AppendUvarint(b, g.Count)
	})
}

func parseGap(d *dec) (Gap, error) {
	g := Gap{Tick: d.uvarint("lost tick"), Count: d.uvarint("lost count")}
	return g, d.done("lost")
}

func appendInput(b []byte, in Input) []byte {
	return appendRecord(b, kindInput, func(b []byte) []byte {
		b = binary.AppendUvarint(b, in.Tick)
		b = binary.LittleEndian.AppendUint16(b, in.Player)
		b = binary.AppendUvarint(b, uint64(len(in.Data)))
		return append(b, in.Data...)
	})
}

func parseInput(d *dec) (Input, error) {
	in := Input{Tick: d.uvarint("input tick"), Player: d.u16("input player")}
	in.Data = append([]byte(nil), d.bytes("input data")...)
	return in, d.done("input")
}

func appendSignature(b []byte, tick uint64, sig []byte) []byte {
	return appendRecord(b, kindSignature, func(b []byte) []byte {
		b = binary.AppendUvarint(b, tick)
		return append(b, sig...)
	})
}

func parseSignature(d *dec) (tick uint64, sig []byte, err error) {
	tick = d.uvarint("signature tick")
	sig = d.take("signature", ed25519.SignatureSize)
	return tick, sig, d.done("signature")
}

func appendFooter(b []byte, f Footer) []byte {
	return appendRecord(b, kindFooter, func(b []byte) []byte {
		b = binary.AppendUvarint(b, f.Ticks)
		b = binary.AppendUvarint(b, f.FinalTick)
		b = binary.LittleEndian.AppendUint64(b, f.FinalHash)
		b = append(b, f.Flags)
		return binary.AppendUvarint(b, f.LostFrames)
	})
}

func parseFooter(d *dec) (Footer, error) {
	f := Footer{Ticks: d.uvarint("footer ticks"), FinalTick: d.uvarint("footer final tick"), FinalHash: d.u64("footer hash"), Flags: d.u8("footer flags"),
		LostFrames: d.uvarint("footer lost")}
	return f, d.done("footer")
}
