package wire

import (
	"bytes"
	"errors"
	"testing"
)

func TestMessageTypeEncoding(t *testing.T) {
	tests := []struct {
		t    MessageType
		wire []byte
	}{
		{0x00, []byte{0x00}},
		{PlayerInput, []byte{0x01}},
		{0x7f, []byte{0x7f}},
		{0x8000, []byte{0x80, 0x00}},
		{ChunkData, []byte{0x80, 0x01}},
		{PartyUpdate, []byte{0x80, 0x2c}},
		{0xbfff, []byte{0xbf, 0xff}},
		{0xc00000, []byte{0xc0, 0x00, 0x00}},
		{ClientHello, []byte{0xc0, 0x00, 0x01}},
		{ScriptBundle, []byte{0xc0, 0x00, 0x12}},
		{0xdfffff, []byte{0xdf, 0xff, 0xff}},
	}
	for _, tt := range tests {
		if !tt.t.Valid() || tt.t.Len() != len(tt.wire) {
			t.Errorf("%v: Valid %v, Len %d; want true, %d", tt.t, tt.t.Valid(), tt.t.Len(), len(tt.wire))
		}
		got, err := AppendMessageType([]byte{0xee}, tt.t)
		if err != nil || !bytes.Equal(got, append([]byte{0xee}, tt.wire...)) {
			t.Errorf("AppendMessageType(%#x) = % x, %v; want ee % x", uint32(tt.t), got, err, tt.wire)
		}
		mt, n, err := ParseMessageType(append(tt.wire, 0x42))
		if err != nil || mt != tt.t || n != len(tt.wire) {
			t.Errorf("ParseMessageType(% x) = %#x, %d, %v", tt.wire, uint32(mt), n, err)
		}
	}
}

func TestMessageTypeInvalid(t *testing.T) {
	for _, mt := range []MessageType{0x80, 0xff, 0x7fff, 0xc000, 0xbfffff, 0xe00000, 0xffffff, 0x1000000, 0xffffffff} {
		if mt.Valid() || mt.Len() != 0 {
			t.Errorf("%#x: Valid %v, Len %d; want false, 0", uint32(mt), mt.Valid(), mt.Len())
		}
		dst := []byte{1, 2}
		got, err := AppendMessageType(dst, mt)
		if !errors.Is(err, ErrInvalidType) || !bytes.Equal(got, dst) {
			t.Errorf("AppendMessageType(%#x) = % x, %v; want dst unchanged, ErrInvalidType", uint32(mt), got, err)
		}
	}
}

func TestParseMessageTypeErrors(t *testing.T) {
	tests := []struct {
		wire []byte
		want error
	}{
		{nil, ErrShort},
		{[]byte{0x80}, ErrShort},
		{[]byte{0xbf}, ErrShort},
		{[]byte{0xc0, 0x00}, ErrShort},
		{[]byte{0xe0, 0x00, 0x00, 0x00}, ErrReservedType},
		{[]byte{0xff}, ErrReservedType},
	}
	for _, tt := range tests {
		mt, n, err := ParseMessageType(tt.wire)
		if !errors.Is(err, tt.want) || mt != 0 || n != 0 {
			t.Errorf("ParseMessageType(% x) = %#x, %d, %v; want 0, 0, %v", tt.wire, uint32(mt), n, err, tt.want)
		}
	}
}

// TestMessageTypeExhaustive parses every two-byte prefix (with a third byte)
// and checks the prefix code against its definition and AppendMessageType.
func TestMessageTypeExhaustive(t *testing.T) {
	for hi := range 0x10000 {
		for _, third := range []byte{0x00, 0x5a, 0xff} {
			in := []byte{byte(hi >> 8), byte(hi), third}
			mt, n, err := ParseMessageType(in)
			wantLen := 1
			switch {
			case in[0] >= 0xe0:
				if !errors.Is(err, ErrReservedType) {
					t.Fatalf("% x: err %v, want ErrReservedType", in, err)
				}
				continue
			case in[0] >= 0xc0:
				wantLen = 3
			case in[0] >= 0x80:
				wantLen = 2
			}
			if err != nil || n != wantLen || mt.Len() != n {
				t.Fatalf("% x: %#x, n %d, Len %d, %v; want n %d", in, uint32(mt), n, mt.Len(), err, wantLen)
			}
			out, err := AppendMessageType(nil, mt)
			if err != nil || !bytes.Equal(out, in[:n]) {
				t.Fatalf("% x: re-encoded % x, %v", in, out, err)
			}
		}
	}
}

func TestString(t *testing.T) {
	for mt, want := range map[MessageType]string{0x01: "MessageType(0x1)", 0x8030: "MessageType(0x8030)", 0xC00050: "MessageType(0xc00050)"} {
		if got := mt.String(); got != want {
			t.Errorf("%#x.String() = %q, want %q", uint32(mt), got, want)
		}
	}
}
