package wire

import "testing"

// writeSample and readSample encode and decode one message using every
// write and read method; the allocation tests and benchmarks share them.
func writeSample(b *Builder, payload []byte) {
	b.U8(1).U16(2).U32(3).U64(4).I8(-1).I16(-2).I32(-3).I64(-4).
		F32(1.5).F64(2.5).Bool(true).Uvarint(300).Varint(-300).
		String("player-one").Bytes(payload).CBOR(payload[:4]).
		Vec3(1, 2, 3).BlockPos(-1, 64, 1).QuantizedPos(100.25, -7.5, 3).QuantizedAngle(1).
		ArrayHeader(2).Elem().U16(1).Elem().U16(2).
		MapHeader(1).Elem().Varint(1).String("v")
}

func readSample(r *Reader) (sum uint64) {
	sum += uint64(r.U8()) + uint64(r.U16()) + uint64(r.U32()) + r.U64()
	sum += uint64(r.I8()) + uint64(r.I16()) + uint64(r.I32()) + uint64(r.I64())
	sum += uint64(r.F32()) + uint64(r.F64())
	if r.Bool() {
		sum++
	}
	sum += r.Uvarint() + uint64(r.Varint())
	sum += uint64(len(r.StringView()) + len(r.Bytes()) + len(r.CBOR()))
	x, _, _ := r.Vec3()
	bx, _, _ := r.BlockPos()
	qx, _, _ := r.QuantizedPos()
	sum += uint64(x) + uint64(bx) + uint64(qx) + uint64(r.QuantizedAngle())
	for range r.ArrayHeader() {
		sum += uint64(r.U16())
	}
	for range r.MapHeader() {
		sum += uint64(r.Varint()) + uint64(len(r.StringView()))
	}
	return sum
}

func TestBuilderNoAllocs(t *testing.T) {
	buf := make([]byte, 0, 512)
	payload := make([]byte, 64)
	var b Builder
	allocs := testing.AllocsPerRun(100, func() {
		b.Reset(buf, EntityBatch)
		writeSample(&b, payload)
		if _, err := b.Build(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("building into a buffer with capacity: %v allocations, want 0", allocs)
	}
}

func TestReaderNoAllocs(t *testing.T) {
	var b Builder
	b.Reset(nil, EntityBatch)
	writeSample(&b, make([]byte, 64))
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var r Reader
	allocs := testing.AllocsPerRun(100, func() {
		r.Reset(m)
		readSample(&r)
		if err := r.Finish(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("reading: %v allocations, want 0", allocs)
	}
}
