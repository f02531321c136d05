package lockstep

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/tickwire/tickwire/protocol"
)

func sampleLog(t testing.TB) ([]byte, []OrderLogRecord) {
	var buf bytes.Buffer
	w, err := NewOrderLogWriter(&buf, OrderLogHeader{Seed: 77, Players: 2, Player: 1})
	if err != nil {
		t.Fatal(err)
	}
	recs := []OrderLogRecord{
		{Orders: protocol.TickOrders{Tick: 0}, Hash: 1},
		{Orders: protocol.TickOrders{Tick: 1, Orders: []protocol.TimestampedOrder{
			{Player: 1, SubTickTime: 10, Order: protocol.Move{Units: []protocol.EntityID{3, 4}, Target: protocol.WorldPos{X: 1024, Y: 2048}}},
			{Player: 2, Order: protocol.Idle{}}}}, Hash: 2},
		{Orders: protocol.TickOrders{Tick: 2}, Hash: 3},
	}
	for _, r := range recs {
		if err := w.Append(r.Orders, r.Hash); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), recs
}

func readAll(b []byte) (*OrderLogReader, []OrderLogRecord, error) {
	r, err := NewOrderLogReader(bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	var out []OrderLogRecord
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return r, out, nil
		}
		if err != nil {
			return r, out, err
		}
		out = append(out, rec)
	}
}

// TestOrderLogTruncation: the whole log reads back; cut at every byte it
// reads its whole records before the cut and says it was truncated.
func TestOrderLogTruncation(t *testing.T) {
	b, recs := sampleLog(t)
	r, got, err := readAll(b)
	if err != nil || r.Truncated || !reflect.DeepEqual(got, recs) || r.Header != (OrderLogHeader{Seed: 77, Players: 2, Player: 1}) {
		t.Fatalf("round trip: %v %v %+v %+v", err, r.Truncated, got, r.Header)
	}
	// ends[i] is where record i ends.
	var ends []int
	for i := range recs {
		var buf bytes.Buffer
		w, _ := NewOrderLogWriter(&buf, r.Header)
		for _, rec := range recs[:i+1] {
			w.Append(rec.Orders, rec.Hash)
		}
		w.Flush()
		ends = append(ends, buf.Len())
	}
	for cut := 0; cut < len(b); cut++ {
		r, got, err := readAll(b[:cut])
		if cut < orderLogHeader {
			if !errors.Is(err, ErrOrderLog) {
				t.Fatalf("cut %d: %v", cut, err)
			}
			continue
		}
		whole := 0
		for whole < len(ends) && ends[whole] <= cut {
			whole++
		}
		if err != nil || len(got) != whole || r.Truncated != (cut > orderLogHeader && (whole == 0 || ends[whole-1] != cut)) {
			t.Fatalf("cut %d: %d records (want %d), truncated %v, %v", cut, len(got), whole, r.Truncated, err)
		}
	}
}

// FuzzOrderLog: any bytes read without panic, and what reads re-encodes
// to the same records.
func FuzzOrderLog(f *testing.F) {
	b, _ := sampleLog(f)
	f.Add(b)
	f.Add(b[:len(b)-3])
	f.Fuzz(func(t *testing.T, b []byte) {
		r, got, err := readAll(b)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		w, _ := NewOrderLogWriter(&buf, r.Header)
		for _, rec := range got {
			if err := w.Append(rec.Orders, rec.Hash); err != nil {
				t.Fatalf("re-encode: %v", err)
			}
		}
		w.Flush()
		_, again, err := readAll(buf.Bytes())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("re-read: %v", err)
		}
	})
}
