package udpfloor

import (
	"runtime"
	"testing"
	"time"
)

// TestMeasureCountsEveryDatagram: every datagram sent arrives (the
// window keeps the receiver's buffer from overflowing) and both sides
// report a CPU cost. No speed is asserted.
func TestMeasureCountsEveryDatagram(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("batched UDP needs Linux")
	}
	f, err := Measure(120, 2000, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if f.Sent != 2000 || f.Received != 2000 {
		t.Fatalf("sent %d, received %d, want 2000 each", f.Sent, f.Received)
	}
	if f.SendUs <= 0 || f.RecvUs < 0 {
		t.Fatalf("send %.3f µs, receive %.3f µs per datagram", f.SendUs, f.RecvUs)
	}
}

// TestMix weighs each direction's floor by its datagrams.
func TestMix(t *testing.T) {
	recv, send := Floor{RecvUs: 1}, Floor{SendUs: 3}
	if got := Mix(1, 3, recv, send); got != 2.5 {
		t.Fatalf("Mix = %v, want 2.5", got)
	}
	if got := Mix(0, 0, recv, send); got != 0 {
		t.Fatalf("Mix of nothing = %v", got)
	}
}
