package sim

import "testing"

func TestIsqrt(t *testing.T) {
	for v := int64(0); v < 200_000; v++ {
		r := isqrt(v)
		if r*r > v || (r+1)*(r+1) <= v {
			t.Fatalf("isqrt(%d) = %d", v, r)
		}
	}
	for _, v := range []int64{1 << 40, 1<<62 - 1, 999_999_999_999} {
		r := isqrt(v)
		if r*r > v || (r+1)*(r+1) <= v {
			t.Fatalf("isqrt(%d) = %d", v, r)
		}
	}
}

func TestAngleOf(t *testing.T) {
	cases := []struct {
		dx, dy int64
		want   WAngle
	}{{1, 0, 0}, {0, 1, 256}, {-1, 0, 512}, {0, -1, 768}, {1, 1, 128}, {-1, -1, 640}, {5, -5, 896}}
	for _, c := range cases {
		if got := angleOf(c.dx, c.dy); got != c.want {
			t.Errorf("angleOf(%d, %d) = %d, want %d", c.dx, c.dy, got, c.want)
		}
	}
	for dx := int64(-50); dx <= 50; dx++ {
		for dy := int64(-50); dy <= 50; dy++ {
			if a := angleOf(dx, dy); a < 0 || a >= FullTurn {
				t.Fatalf("angleOf(%d, %d) = %d out of range", dx, dy, a)
			}
		}
	}
}
