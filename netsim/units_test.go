package netsim

import "testing"

func TestParseBandwidth(t *testing.T) {
	good := map[string]int64{
		"10mbit": 1_250_000, "10Mbit": 1_250_000, "500kbit": 62_500, "1gbit": 125_000_000, "8bit": 1,
		"64kB": 64_000, "64KB": 64_000, "2MB": 2_000_000, "1GB": 1_000_000_000, "1500B": 1500,
		"1500": 1500, " 1.5 mbit ": 187_500, "0": 0, "1bit": 1,
	}
	for in, want := range good {
		if got, err := ParseBandwidth(in); err != nil || got != want {
			t.Errorf("ParseBandwidth(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "mbit", "-1", "10mb", "10 parsecs", "NaN", "1e300GB", "Inf"} {
		if got, err := ParseBandwidth(in); err == nil {
			t.Errorf("ParseBandwidth(%q) = %d, want an error", in, got)
		}
	}
}

func FuzzParseBandwidth(f *testing.F) {
	for _, s := range []string{"10mbit", "64kB", "1500", "1.5 mbit", "1e300GB", "-0", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseBandwidth(s); err == nil && v < 0 {
			t.Errorf("ParseBandwidth(%q) = %d", s, v)
		}
	})
}
