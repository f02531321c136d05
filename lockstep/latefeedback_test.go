package lockstep

import (
	"testing"
	"time"
)

// TestLateIndicator: the indicator shows the first late order at once,
// changes at most once every 3 s, and then shows the latest of those held
// with their count.
func TestLateIndicator(t *testing.T) {
	var l lateIndicator
	var d Diagnostics
	s := time.Second
	steps := []struct {
		at, by    time.Duration // by 0: only time passes
		want      string
		wantCount int
	}{
		{1 * s, 34 * time.Millisecond, "Late order (+34 ms)", 1},
		{2 * s, 50 * time.Millisecond, "Late order (+34 ms)", 1},    // held
		{3 * s, 12400 * time.Microsecond, "Late order (+34 ms)", 1}, // held
		{3*s + 999*time.Millisecond, 0, "Late order (+34 ms)", 1},
		{4 * s, 0, "Late order (+12 ms)", 2}, // the latest of the two held
		{5 * s, 0, "Late order (+12 ms)", 2},
		{8 * s, 70 * time.Millisecond, "Late order (+70 ms)", 1},
	}
	for _, st := range steps {
		if st.by > 0 {
			l.late(st.by, st.at, &d)
		} else {
			l.refresh(st.at, &d)
		}
		if d.LateNotice != st.want || d.LateNoticeCount != st.wantCount {
			t.Fatalf("at %v: %q ×%d, want %q ×%d", st.at, d.LateNotice, d.LateNoticeCount, st.want, st.wantCount)
		}
	}
}
