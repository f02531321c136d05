package transport

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"
)

type sound struct {
	ID     uint32
	Volume uint8
	Name   string
}

func encodeSound(dst []byte, s sound) []byte {
	dst = binary.BigEndian.AppendUint32(dst, s.ID)
	dst = append(dst, s.Volume)
	return append(dst, s.Name...)
}

func decodeSound(b []byte) (sound, error) {
	if len(b) < 5 {
		return sound{}, errors.New("short sound")
	}
	return sound{ID: binary.BigEndian.Uint32(b), Volume: b[4], Name: string(b[5:])}, nil
}

// recorder is a MessageSender that records messages and can refuse.
type recorder struct {
	msgs   []Message
	refuse bool
}

func (r *recorder) Send(ch ChannelID, data []byte) error {
	if r.refuse {
		return ErrBackpressure
	}
	r.msgs = append(r.msgs, Message{Channel: ch, Data: bytes.Clone(data)})
	return nil
}

func TestQueueBridgeRoundTrip(t *testing.T) {
	for _, batch := range []int{1, 4, 64} {
		rec := &recorder{}
		send := NewQueueBridge(rec, ChannelEffects, encodeSound, decodeSound)
		send.SetBatchMode(batch)
		local := make(chan sound, 100)
		var want []sound
		for i := range 10 {
			s := sound{ID: uint32(i), Volume: byte(i * 3), Name: string(bytes.Repeat([]byte("x"), i*30))}
			want = append(want, s)
			local <- s
		}
		// Backpressure keeps the taken items for the next flush.
		rec.refuse = true
		if n, err := send.FlushToNetwork(local); n != 0 || !errors.Is(err, ErrBackpressure) {
			t.Fatalf("refused flush = %d, %v", n, err)
		}
		rec.refuse = false
		if n, err := send.FlushToNetwork(local); n != 10 || err != nil {
			t.Fatalf("flush = %d, %v", n, err)
		}
		if wantMsgs := (10 + batch - 1) / batch; len(rec.msgs) != wantMsgs {
			t.Fatalf("batch %d: %d messages, want %d", batch, len(rec.msgs), wantMsgs)
		}
		recv := NewQueueBridge(nil, ChannelEffects, encodeSound, decodeSound)
		out := make(chan sound, 100)
		for _, m := range rec.msgs {
			if err := recv.OnReceive(context.Background(), m, out); err != nil {
				t.Fatal(err)
			}
		}
		close(out)
		var got []sound
		for s := range out {
			got = append(got, s)
		}
		if len(got) != len(want) {
			t.Fatalf("batch %d: got %d items", batch, len(got))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("item %d = %+v, want %+v", i, got[i], want[i])
			}
		}
	}
}

func TestQueueBridgeRejectsMalformed(t *testing.T) {
	b := NewQueueBridge(nil, 3, encodeSound, decodeSound)
	out := make(chan sound, 10)
	for _, m := range []Message{
		{Channel: 3, Data: []byte{10, 1, 2}},
		{Channel: 3, Data: []byte{0x80}},
		{Channel: 4, Data: nil},
		{Channel: 3, Data: []byte{2, 1, 2}},
	} {
		if err := b.OnReceive(context.Background(), m, out); err == nil {
			t.Errorf("accepted %v", m)
		}
	}
}
