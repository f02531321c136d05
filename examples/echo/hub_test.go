package echo

import (
	"errors"
	"testing"

	"github.com/tickwire/tickwire/protocol"
)

// TestHub drives the pure core by hand: a Start to every seat, a Say
// echoed to every live seat with its sender, bad bytes refused with
// nothing sent, a seat that left sent nothing more.
func TestHub(t *testing.T) {
	h := NewHub([]protocol.PlayerID{1, 2, 3})
	if rd := h.Ready(); len(rd) != 3 {
		t.Fatalf("%d Starts, want 3", len(rd))
	}
	for i, e := range h.Ready() {
		if s, err := ParseStart(e.Data); e.To != i || err != nil || s.Players != 3 {
			t.Fatalf("Start %d: %+v %v", i, s, err)
		}
	}
	h.Advance()
	say, _ := (&Say{Seq: 1, Text: []byte("hi")}).Append(nil)
	if err := h.Step(1, say); err != nil {
		t.Fatal(err)
	}
	if rd := h.Ready(); len(rd) != 3 {
		t.Fatalf("%d echoes, want 3", len(rd))
	}
	for _, e := range h.Ready() {
		if m, err := ParseEcho(e.Data); err != nil || m.From != 2 || string(m.Text) != "hi" {
			t.Fatalf("echo to %d: %+v %v", e.To, m, err)
		}
	}
	h.Advance()
	if err := h.Step(0, []byte{0x02, 1}); !errors.Is(err, ErrMessage) || len(h.Ready()) != 0 {
		t.Fatalf("bad bytes: %v, %d sent", err, len(h.Ready()))
	}
	h.Leave(2)
	h.Leave(2)
	if err := h.Step(2, say); err != nil || len(h.Ready()) != 0 {
		t.Fatalf("a seat that left spoke: %v, %d sent", err, len(h.Ready()))
	}
	if err := h.Step(0, say); err != nil || len(h.Ready()) != 2 || h.Live() != 2 {
		t.Fatalf("after a leave: %v, %d sent, %d live", err, len(h.Ready()), h.Live())
	}
	if st := h.Stats(); st != (HubStats{Said: 2, Refused: 1, Left: 1}) {
		t.Fatalf("stats %+v", st)
	}
}
