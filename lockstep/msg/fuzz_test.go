package msg_test

import (
	"reflect"
	"testing"

	"github.com/tickwire/tickwire/lockstep/msg"
)

// FuzzDecode: arbitrary bytes never panic; whatever decodes re-encodes to
// bytes that decode to the same message.
func FuzzDecode(f *testing.F) {
	var c msg.Codec
	for _, m := range samples() {
		b, err := c.Append(nil, m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := c.Decode(b)
		if err != nil {
			if m != nil {
				t.Fatalf("error %v with a message", err)
			}
			return
		}
		again, err := c.Append(nil, m)
		if err != nil {
			t.Fatalf("re-encode %T: %v", m, err)
		}
		m2, err := c.Decode(again)
		if err != nil {
			t.Fatalf("decode of re-encoded %T: %v", m, err)
		}
		if s, ok := m.(*msg.OrderSubmit); ok {
			s.Size = 0
			m2.(*msg.OrderSubmit).Size = 0
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("decode → encode → decode changed %T\n%+v\n%+v", m, m, m2)
		}
	})
}
