package echo

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

// TestGoldenBytes pins the wire layout drawn in msg.go.
func TestGoldenBytes(t *testing.T) {
	start, _ := (&Start{Players: 3}).Append(nil)
	say, _ := (&Say{Seq: 2, SentUs: 0x0102, Text: []byte("hi")}).Append(nil)
	echo, _ := (&Echo{From: 7, Say: Say{Seq: 2, SentUs: 0x0102, Text: []byte("hi")}}).Append(nil)
	for _, c := range []struct {
		name string
		got  []byte
		want string
	}{
		{"Start", start, "0103"},
		{"Say", say, "02" + "02000000" + "0201000000000000" + "02" + "6869"},
		{"Echo", echo, "03" + "0700" + "02000000" + "0201000000000000" + "02" + "6869"},
	} {
		if hex.EncodeToString(c.got) != c.want {
			t.Errorf("%s: % x, want %s", c.name, c.got, c.want)
		}
	}
}

func TestRoundTripAndRefusals(t *testing.T) {
	in := Echo{From: 300, Say: Say{Seq: 9, SentUs: 1 << 40, Text: bytes.Repeat([]byte{'x'}, MaxText)}}
	b, err := in.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ParseEcho(b)
	if err != nil || out.From != in.From || out.Seq != in.Seq || out.SentUs != in.SentUs || !bytes.Equal(out.Text, in.Text) {
		t.Fatalf("%+v, %v", out, err)
	}
	if _, err := (&Say{Text: make([]byte, MaxText+1)}).Append(nil); !errors.Is(err, ErrMessage) {
		t.Errorf("a long text encodes: %v", err)
	}
	say, _ := (&Say{Seq: 1, Text: []byte("a")}).Append(nil)
	long := append([]byte{byte(TypeSay), 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, MaxText + 1, 1}, make([]byte, MaxText+1)...)
	for name, b := range map[string][]byte{
		"empty": nil, "short": say[:len(say)-1], "trailing": append(say, 0), "an Echo": b, "long text": long,
		"reserved type": {0xE0, 0, 0},
	} {
		if _, err := ParseSay(b); !errors.Is(err, ErrMessage) {
			t.Errorf("%s: %v, want ErrMessage", name, err)
		}
	}
}

// FuzzParse: no input makes a decoder panic, and what decodes encodes
// back to the same bytes.
func FuzzParse(f *testing.F) {
	for _, m := range []interface{ Append([]byte) ([]byte, error) }{
		&Start{Players: 4}, &Say{Seq: 1, SentUs: 5, Text: []byte("hello")},
		&Echo{From: 2, Say: Say{Seq: 3, Text: []byte("x")}},
	} {
		b, _ := m.Append(nil)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := ParseStart(b); err == nil {
			again, _ := m.Append(nil)
			if !bytes.Equal(again, b) {
				t.Fatalf("Start % x re-encodes as % x", b, again)
			}
		}
		if m, err := ParseSay(b); err == nil {
			again, _ := m.Append(nil)
			if !bytes.Equal(again, b) {
				t.Fatalf("Say % x re-encodes as % x", b, again)
			}
		}
		if m, err := ParseEcho(b); err == nil {
			again, _ := m.Append(nil)
			if !bytes.Equal(again, b) {
				t.Fatalf("Echo % x re-encodes as % x", b, again)
			}
		}
	})
}
