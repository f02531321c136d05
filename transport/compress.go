package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

var errDecompress = errors.New("transport: bad compressed message")

// codec compresses message payloads with zstd at level 3. A compressed
// payload is a uvarint of the original size followed by one zstd frame.
// It is safe for concurrent use.
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
	return c.enc.EncodeAll(src, dst)
}

// decompress reverses compress. It refuses a declared size over limit and
// never produces more than the declared size.
func (c *codec) decompress(src []byte, limit int) ([]byte, error) {
	size, n := binary.Uvarint(src)
	if n <= 0 || size == 0 || size > uint64(limit) {
		return nil, fmt.Errorf("%w: declared size %d (limit %d)", errDecompress, size, limit)
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
