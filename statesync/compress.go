package statesync

import (
	"fmt"

	"github.com/klauspost/compress/zstd"
	"github.com/tickwire/tickwire/statesync/msg"
)

const (
	// CompressThreshold is the seed's: data up to this size is sent raw.
	CompressThreshold = 512
	// MaxDecompressed bounds what one data field may decompress to.
	MaxDecompressed = 4 << 20
	// MaxPartitionBytes bounds what one partition of a frame's delta may
	// decompress to: the seed's 50 entities per partition leave 1 KiB for
	// each entity created in one frame.
	MaxPartitionBytes = 64 << 10
)

// Compressor applies the seed's compression rule with zstd (the seed's
// open question 4 answered: zstd, already the transport's codec): data
// longer than CompressThreshold is compressed when that saves at least
// 15%, otherwise sent raw. It runs on the caller's goroutine.
type Compressor struct {
	enc  *zstd.Encoder
	dec  *zstd.Decoder
	part *zstd.Decoder // bounded by MaxPartitionBytes; made on first use
}

// NewCompressor returns a compressor; it panics only if zstd rejects its
// fixed options.
func NewCompressor() *Compressor {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		panic(err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxDecompressed))
	if err != nil {
		panic(err)
	}
	return &Compressor{enc: enc, dec: dec}
}

// Encode returns data's encoding and the field to send: data itself (Raw)
// or a zstd frame appended to scratch.
func (c *Compressor) Encode(scratch, data []byte) (msg.Encoding, []byte) {
	if len(data) <= CompressThreshold {
		return msg.Raw, data
	}
	z := c.enc.EncodeAll(data, scratch[:0])
	if len(z) <= len(data)*85/100 {
		return msg.Zstd, z
	}
	return msg.Raw, data
}

// Decode returns the bytes of a data field: data itself when raw, or its
// decompression appended to dst, refusing more than MaxDecompressed.
func (c *Compressor) Decode(dst []byte, enc msg.Encoding, data []byte) ([]byte, error) {
	return decode(c.dec, dst, enc, data)
}

// DecodePartition is Decode for a partition of a delta, refusing more
// than MaxPartitionBytes, raw or decompressed.
func (c *Compressor) DecodePartition(enc msg.Encoding, data []byte) ([]byte, error) {
	if c.part == nil && enc == msg.Zstd {
		// Only a server decodes partitions: clients never pay for this
		// decoder.
		part, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxPartitionBytes))
		if err != nil {
			return nil, err
		}
		c.part = part
	}
	out, err := decode(c.part, nil, enc, data)
	if err == nil && len(out) > MaxPartitionBytes {
		return nil, fmt.Errorf("%w: partition of %d bytes", ErrTooLarge, len(out))
	}
	return out, err
}

func decode(d *zstd.Decoder, dst []byte, enc msg.Encoding, data []byte) ([]byte, error) {
	switch enc {
	case msg.Raw:
		return data, nil
	case msg.Zstd:
		out, err := d.DecodeAll(data, dst)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTooLarge, err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: encoding %d", ErrMalformed, enc)
}
