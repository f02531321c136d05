package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// maxExpansion bounds the ratio of a message's size to its compressed
// payload's: a receiver refuses a payload that declares more, before it
// allocates anything for the output, so one datagram of about 1.2 kB
// yields at most about 300 kB. Structured game data and text compress 3 to
// 30 times at level 3; only degenerate data (runs of one byte, a short
// pattern repeated) goes further, up to about 9,300 for 16 MiB of zeros,
// and the sender pads that to the bound (see codec.compress), which costs
// it at most size/256 bytes.
const maxExpansion = 256

// skippableMagic starts a zstd skippable frame (RFC 8878 §3.1.2): a
// little-endian magic number and size, then that many bytes every decoder
// ignores.
const (
	skippableMagic  = 0x184D2A50
	skippableHeader = 8
)

var errDecompress = errors.New("transport: bad compressed message")

// codec compresses message payloads with zstd at level 3. A compressed
// payload is a uvarint of the original size followed by one zstd frame
// and, when the frame alone would expand more than maxExpansion times, a
// skippable frame that pads it to the bound. It is safe for concurrent use.
type codec struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

func newCodec(maxMessage int) (*codec, error) {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(compressionLevel)),
		zstd.WithEncoderCRC(false))
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderMaxMemory(uint64(max(maxMessage, 1))),
		zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderConcurrency(0))
	if err != nil {
		return nil, err
	}
	return &codec{enc: enc, dec: dec}, nil
}

// compress returns the compressed form of src.
func (c *codec) compress(src []byte) []byte {
	dst := binary.AppendUvarint(make([]byte, 0, len(src)/2+16), uint64(len(src)))
	return padToExpansion(c.enc.EncodeAll(src, dst), len(src))
}

// padToExpansion appends a skippable frame to the compressed payload z of
// size bytes if z is shorter than size/maxExpansion, so that its receiver
// accepts it.
func padToExpansion(z []byte, size int) []byte {
	short := (size+maxExpansion-1)/maxExpansion - len(z)
	if short <= 0 {
		return z
	}
	pad := max(short-skippableHeader, 0)
	z = binary.LittleEndian.AppendUint32(z, skippableMagic)
	z = binary.LittleEndian.AppendUint32(z, uint32(pad))
	return append(z, make([]byte, pad)...)
}

// decompress reverses compress. It refuses a declared size over limit or
// over maxExpansion times the payload's size before allocating the output,
// and never produces more than the declared size.
func (c *codec) decompress(src []byte, limit int) ([]byte, error) {
	size, n := binary.Uvarint(src)
	if n <= 0 || size == 0 || size > uint64(limit) {
		return nil, fmt.Errorf("%w: declared size %d (limit %d)", errDecompress, size, limit)
	}
	if size > uint64(len(src))*maxExpansion {
		return nil, fmt.Errorf("%w: declared size %d expands %d bytes more than %d times", errDecompress, size, len(src), maxExpansion)
	}
	out, err := c.dec.DecodeAll(src[n:], make([]byte, 0, size))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errDecompress, err)
	}
	if uint64(len(out)) != size {
		return nil, fmt.Errorf("%w: %d bytes, declared %d", errDecompress, len(out), size)
	}
	return out, nil
}

// close releases the codec's resources.
func (c *codec) close() {
	c.enc.Close()
	c.dec.Close()
}

// wantsCompression reports whether a channel compresses a message of n bytes.
func (c *chanSettings) wantsCompression(n int) bool {
	switch c.Compression {
	case CompressAlways:
		return n > 0
	case CompressAboveThreshold:
		return n > c.CompressionThreshold
	}
	return false
}

// compressJob is a message handed to the worker pool.
type compressJob struct {
	ch  ChannelID
	msg *outMsg
	src []byte
	out []byte
}

// compressPool is a bounded pool of compression workers. Finished jobs are
// handed to done.
type compressPool struct {
	codec *codec
	jobs  chan compressPoolJob
	wg    sync.WaitGroup
}

type compressPoolJob struct {
	job  *compressJob
	done func(*compressJob)
}

func newCompressPool(c *codec, workers int) *compressPool {
	p := &compressPool{codec: c, jobs: make(chan compressPoolJob, 4*workers)}
	for range workers {
		p.wg.Go(func() {
			for j := range p.jobs {
				j.job.out = p.codec.compress(j.job.src)
				j.done(j.job)
			}
		})
	}
	return p
}

// submit queues a job; it reports false, without blocking, when the queue
// is full.
func (p *compressPool) submit(j *compressJob, done func(*compressJob)) bool {
	select {
	case p.jobs <- compressPoolJob{j, done}:
		return true
	default:
		return false
	}
}

// close stops the workers after the queued jobs.
func (p *compressPool) close() {
	close(p.jobs)
	p.wg.Wait()
}
