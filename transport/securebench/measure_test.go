package securebench

import (
	"testing"
	"time"
)

func TestMeasure(t *testing.T) {
	r, err := Measure(t.Context(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.HandshakesPerSecond <= 0 || r.SealNs <= 0 || r.OpenNs <= 0 {
		t.Fatalf("figures %+v", r)
	}
	if r.W1Plain.Delivered == 0 || r.W1Secure.Delivered == 0 {
		t.Fatalf("W1 delivered %d plaintext, %d encrypted", r.W1Plain.Delivered, r.W1Secure.Delivered)
	}
	t.Logf("%+v", r)
}
