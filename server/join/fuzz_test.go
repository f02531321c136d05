package join_test

import (
	"reflect"
	"testing"

	"github.com/tickwire/tickwire/server/join"
)

// FuzzParse: arbitrary bytes never panic; whatever parses re-encodes to
// the same bytes.
func FuzzParse(f *testing.F) {
	for _, m := range samples() {
		b, err := m.Append(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := join.Parse(b)
		if err != nil {
			if m != nil {
				t.Fatalf("error %v with a message", err)
			}
			return
		}
		again, err := m.Append(nil)
		if err != nil {
			t.Fatalf("re-encode %T: %v", m, err)
		}
		if string(again) != string(b) {
			t.Fatalf("%T re-encodes to % x, not % x", m, again, b)
		}
		m2, err := join.Parse(again)
		if err != nil || !reflect.DeepEqual(m, m2) {
			t.Fatalf("parse of re-encoded %T: %v\n%+v\n%+v", m, err, m, m2)
		}
	})
}
