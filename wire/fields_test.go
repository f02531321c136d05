package wire

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
)

// This file is the test harness shared by the round-trip, property and fuzz
// tests: a field of any kind, and functions to write, read, compare and
// generate one.

type kind uint8

const (
	kU8 kind = iota
	kU16
	kU32
	kU64
	kI8
	kI16
	kI32
	kI64
	kF32
	kF64
	kBool
	kUvarint
	kVarint
	kBytes
	kString
	kCBOR
	kVec3
	kBlockPos
	kQuantizedPos
	kQuantizedAngle
	kArray // ArrayHeader followed by U16 elements
	kMap   // MapHeader followed by Varint keys and String values
	numKinds
)

// field holds one value. Numbers are kept as raw bits in n so that NaNs and
// negative zeros compare exactly.
type field struct {
	k     kind
	n     [3]uint64
	p     []byte   // Bytes, String, CBOR
	elems []uint16 // Array
	keys  []int64  // Map
	vals  [][]byte // Map
}

func writeField(b *Builder, f field) {
	switch f.k {
	case kU8:
		b.U8(uint8(f.n[0]))
	case kU16:
		b.U16(uint16(f.n[0]))
	case kU32:
		b.U32(uint32(f.n[0]))
	case kU64:
		b.U64(f.n[0])
	case kI8:
		b.I8(int8(f.n[0]))
	case kI16:
		b.I16(int16(f.n[0]))
	case kI32:
		b.I32(int32(f.n[0]))
	case kI64:
		b.I64(int64(f.n[0]))
	case kF32:
		b.F32(math.Float32frombits(uint32(f.n[0])))
	case kF64:
		b.F64(math.Float64frombits(f.n[0]))
	case kBool:
		b.Bool(f.n[0] == 1)
	case kUvarint:
		b.Uvarint(f.n[0])
	case kVarint:
		b.Varint(int64(f.n[0]))
	case kBytes:
		b.Bytes(f.p)
	case kString:
		b.String(string(f.p))
	case kCBOR:
		b.CBOR(f.p)
	case kVec3:
		b.Vec3(math.Float32frombits(uint32(f.n[0])), math.Float32frombits(uint32(f.n[1])), math.Float32frombits(uint32(f.n[2])))
	case kBlockPos:
		b.BlockPos(int32(f.n[0]), int32(f.n[1]), int32(f.n[2]))
	case kQuantizedPos:
		b.QuantizedPos(math.Float64frombits(f.n[0]), math.Float64frombits(f.n[1]), math.Float64frombits(f.n[2]))
	case kQuantizedAngle:
		b.QuantizedAngle(math.Float32frombits(uint32(f.n[0])))
	case kArray:
		b.ArrayHeader(uint32(len(f.elems)))
		for _, e := range f.elems {
			b.Elem().U16(e)
		}
	case kMap:
		b.MapHeader(uint32(len(f.keys)))
		for i, k := range f.keys {
			b.Elem().Varint(k).String(string(f.vals[i]))
		}
	}
}

func readField(r *Reader, k kind) field {
	f := field{k: k}
	switch k {
	case kU8:
		f.n[0] = uint64(r.U8())
	case kU16:
		f.n[0] = uint64(r.U16())
	case kU32:
		f.n[0] = uint64(r.U32())
	case kU64:
		f.n[0] = r.U64()
	case kI8:
		f.n[0] = uint64(r.I8())
	case kI16:
		f.n[0] = uint64(r.I16())
	case kI32:
		f.n[0] = uint64(r.I32())
	case kI64:
		f.n[0] = uint64(r.I64())
	case kF32:
		f.n[0] = uint64(math.Float32bits(r.F32()))
	case kF64:
		f.n[0] = math.Float64bits(r.F64())
	case kBool:
		if r.Bool() {
			f.n[0] = 1
		}
	case kUvarint:
		f.n[0] = r.Uvarint()
	case kVarint:
		f.n[0] = uint64(r.Varint())
	case kBytes:
		f.p = r.Bytes()
	case kString:
		f.p = []byte(r.StringView())
	case kCBOR:
		f.p = r.CBOR()
	case kVec3:
		x, y, z := r.Vec3()
		f.n = [3]uint64{uint64(math.Float32bits(x)), uint64(math.Float32bits(y)), uint64(math.Float32bits(z))}
	case kBlockPos:
		x, y, z := r.BlockPos()
		f.n = [3]uint64{uint64(x), uint64(y), uint64(z)}
	case kQuantizedPos:
		x, y, z := r.QuantizedPos()
		f.n = [3]uint64{math.Float64bits(x), math.Float64bits(y), math.Float64bits(z)}
	case kQuantizedAngle:
		f.n[0] = uint64(math.Float32bits(r.QuantizedAngle()))
	case kArray:
		n := r.ArrayHeader()
		for range n {
			f.elems = append(f.elems, r.U16())
		}
	case kMap:
		n := r.MapHeader()
		for range n {
			f.keys = append(f.keys, r.Varint())
			f.vals = append(f.vals, []byte(r.StringView()))
		}
	}
	return f
}

// sameField reports whether a and b encode identically: exact for most
// kinds, equal quantisation steps for the quantised ones.
func sameField(a, b field) bool {
	if a.k != b.k {
		return false
	}
	switch a.k {
	case kQuantizedPos:
		for i := range a.n {
			qa, _ := quantizePos(math.Float64frombits(a.n[i]))
			qb, _ := quantizePos(math.Float64frombits(b.n[i]))
			if qa != qb {
				return false
			}
		}
		return true
	case kQuantizedAngle:
		qa, _ := quantizeAngle(math.Float32frombits(uint32(a.n[0])))
		qb, _ := quantizeAngle(math.Float32frombits(uint32(b.n[0])))
		return qa == qb
	case kBytes, kString, kCBOR:
		return bytes.Equal(a.p, b.p)
	case kArray:
		return slices.Equal(a.elems, b.elems)
	case kMap:
		return slices.Equal(a.keys, b.keys) && slices.EqualFunc(a.vals, b.vals, bytes.Equal)
	}
	return a.n == b.n
}

// randomField draws a value of kind k, favouring edge cases.
func randomField(rng *rand.Rand, k kind) field {
	f := field{k: k}
	num := func() uint64 {
		switch rng.IntN(4) {
		case 0:
			return uint64(rng.IntN(300)) // small
		case 1:
			return -uint64(rng.IntN(300)) // small negative / huge unsigned
		case 2:
			return 1 << rng.IntN(64)
		}
		return rng.Uint64()
	}
	data := func() []byte {
		p := make([]byte, rng.IntN(200))
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		return p
	}
	pos := func() uint64 {
		v := (rng.Float64()*2 - 1) * MaxQuantizedPos
		if rng.IntN(8) == 0 {
			v = []float64{MinQuantizedPos, MaxQuantizedPos, 0, math.Copysign(0, -1), 0.5 / PosScale, -0.5 / PosScale}[rng.IntN(6)]
		}
		return math.Float64bits(v)
	}
	switch k {
	case kBool:
		f.n[0] = uint64(rng.IntN(2))
	case kF32:
		f.n[0] = num() & math.MaxUint32 // arbitrary bits, NaNs included
	case kVec3:
		for i := range f.n {
			f.n[i] = num() & math.MaxUint32
		}
	case kQuantizedPos:
		f.n = [3]uint64{pos(), pos(), pos()}
	case kQuantizedAngle:
		f.n[0] = uint64(math.Float32bits(float32((rng.Float64()*2 - 1) * 100)))
	case kBytes, kString, kCBOR:
		f.p = data()
	case kArray:
		for range rng.IntN(20) {
			f.elems = append(f.elems, uint16(num()))
		}
	case kMap:
		for range rng.IntN(10) {
			f.keys = append(f.keys, int64(num()))
			f.vals = append(f.vals, data())
		}
	case kBlockPos:
		for i := range f.n {
			f.n[i] = uint64(int32(num()))
		}
	default:
		f.n[0] = num()
	}
	switch k { // truncate to the field's width as readField returns it
	case kU8:
		f.n[0] = uint64(uint8(f.n[0]))
	case kU16:
		f.n[0] = uint64(uint16(f.n[0]))
	case kU32:
		f.n[0] = uint64(uint32(f.n[0]))
	case kI8:
		f.n[0] = uint64(int8(f.n[0]))
	case kI16:
		f.n[0] = uint64(int16(f.n[0]))
	case kI32:
		f.n[0] = uint64(int32(f.n[0]))
	}
	return f
}
