package transport

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
)

// MessageSender is what a QueueBridge sends through; *Conn implements it.
type MessageSender interface {
	Send(ch ChannelID, data []byte) error
}

// QueueBridge connects a Go channel of items to a network channel
// (transport seed §11): FlushToNetwork drains local items, encodes and
// sends them; OnReceive decodes a received message and pushes its items.
// With batch mode, up to the batch size of items share one message.
//
// A bridge message is a sequence of items, each a uvarint length followed
// by the encoded item. A QueueBridge is not safe for concurrent use.
type QueueBridge[T any] struct {
	out      MessageSender
	ch       ChannelID
	encode   func(dst []byte, item T) []byte
	decode   func(b []byte) (T, error)
	maxBatch int
	pending  []T    // taken from the local queue, not yet accepted by Send
	buf      []byte // message being built
	item     []byte // item being encoded
}

// errBridgeMessage reports a received message that is not a valid
// sequence of items.
var errBridgeMessage = errors.New("transport: malformed bridge message")

// NewQueueBridge returns a bridge for channel ch. encode appends an item's
// encoding to dst; decode parses one item.
func NewQueueBridge[T any](out MessageSender, ch ChannelID, encode func(dst []byte, item T) []byte, decode func(b []byte) (T, error)) *QueueBridge[T] {
	return &QueueBridge[T]{out: out, ch: ch, encode: encode, decode: decode, maxBatch: 1}
}

// SetBatchMode puts up to maxBatch items in each message; 1 or less sends
// one item per message.
func (b *QueueBridge[T]) SetBatchMode(maxBatch int) { b.maxBatch = max(maxBatch, 1) }

// FlushToNetwork sends the items ready in local without waiting for more.
// It returns how many items were sent. On ErrBackpressure the items
// already taken are kept and sent first by the next call.
func (b *QueueBridge[T]) FlushToNetwork(local <-chan T) (int, error) {
	sent := 0
	for {
	fill:
		for len(b.pending) < b.maxBatch {
			select {
			case item, ok := <-local:
				if !ok {
					break fill
				}
				b.pending = append(b.pending, item)
			default:
				break fill
			}
		}
		if len(b.pending) == 0 {
			return sent, nil
		}
		b.buf = b.buf[:0]
		for _, item := range b.pending {
			b.item = b.encode(b.item[:0], item)
			b.buf = binary.AppendUvarint(b.buf, uint64(len(b.item)))
			b.buf = append(b.buf, b.item...)
		}
		if err := b.out.Send(b.ch, b.buf); err != nil {
			return sent, err
		}
		sent += len(b.pending)
		clear(b.pending)
		b.pending = b.pending[:0]
	}
}

// OnReceive decodes a message of the bridge's channel and pushes its items
// to local, waiting for room until ctx ends.
func (b *QueueBridge[T]) OnReceive(ctx context.Context, m Message, local chan<- T) error {
	if m.Channel != b.ch {
		return fmt.Errorf("%w: message of channel %d on bridge of channel %d", errBridgeMessage, m.Channel, b.ch)
	}
	data := m.Data
	for len(data) > 0 {
		n, k := binary.Uvarint(data)
		if k <= 0 || n > uint64(len(data)-k) {
			return errBridgeMessage
		}
		item, err := b.decode(data[k : k+int(n)])
		if err != nil {
			return err
		}
		data = data[k+int(n):]
		select {
		case local <- item:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
