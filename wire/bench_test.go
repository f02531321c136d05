package wire

import (
	"math"
	"testing"
)

// BenchmarkBuilderEntityPosition builds the most frequent message: entity
// id, quantised position, yaw and pitch (21 bytes).
func BenchmarkBuilderEntityPosition(b *testing.B) {
	buf := make([]byte, 0, 64)
	var bl Builder
	b.ReportAllocs()
	b.SetBytes(21)
	for i := 0; b.Loop(); i++ {
		bl.Reset(buf, EntityPosition)
		bl.U32(uint32(i)).QuantizedPos(float64(i&1023)*0.25, 64.5, -12.125).QuantizedAngle(1.25).QuantizedAngle(-0.5)
		if _, err := bl.Build(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReaderEntityPosition(b *testing.B) {
	m, err := NewBuilder(nil, EntityPosition).U32(7).QuantizedPos(100.25, 64.5, -12.125).QuantizedAngle(1.25).QuantizedAngle(-0.5).Build()
	if err != nil {
		b.Fatal(err)
	}
	var r Reader
	b.ReportAllocs()
	b.SetBytes(int64(len(m)))
	for b.Loop() {
		r.Reset(m)
		r.U32()
		r.QuantizedPos()
		r.QuantizedAngle()
		r.QuantizedAngle()
		if err := r.Finish(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuilderAllFields builds a message using every write method.
func BenchmarkBuilderAllFields(b *testing.B) {
	buf := make([]byte, 0, 512)
	payload := make([]byte, 64)
	var bl Builder
	bl.Reset(buf, EntityBatch)
	writeSample(&bl, payload)
	b.SetBytes(int64(bl.Len()))
	b.ReportAllocs()
	for b.Loop() {
		bl.Reset(buf, EntityBatch)
		writeSample(&bl, payload)
		if _, err := bl.Build(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReaderAllFields(b *testing.B) {
	var bl Builder
	bl.Reset(nil, EntityBatch)
	writeSample(&bl, make([]byte, 64))
	m, err := bl.Build()
	if err != nil {
		b.Fatal(err)
	}
	var r Reader
	b.SetBytes(int64(len(m)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(m)
		readSample(&r)
		if err := r.Finish(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUvarint decodes values of every length from 1 to 10 bytes.
func BenchmarkUvarint(b *testing.B) {
	var enc [][]byte
	for shift := 0; shift < 64; shift += 7 {
		enc = append(enc, AppendUvarint(nil, math.MaxUint64>>(63-shift)))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range enc {
			if _, _, err := Uvarint(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}
