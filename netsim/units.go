package netsim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseBandwidth parses a rate into bytes per second for
// Link.BandwidthBps. A bare number is bytes per second. The suffixes bit,
// kbit, mbit and gbit (any case) mean bits per second; B, kB (or KB), MB
// and GB mean bytes per second. Prefixes are decimal (k = 1000). A byte
// suffix in lower case ("mb") is rejected as ambiguous. Examples:
// "10mbit" = 1,250,000, "64kB" = 64,000, "1500" = 1,500; "0" is unlimited.
func ParseBandwidth(s string) (int64, error) {
	bitUnits := []struct {
		suffix string
		scale  float64 // bytes per second per unit
	}{{"gbit", 1e9 / 8}, {"mbit", 1e6 / 8}, {"kbit", 1e3 / 8}, {"bit", 1.0 / 8}}
	byteUnits := []struct {
		suffix string
		scale  float64
	}{{"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}, {"KB", 1e3}, {"B", 1}}

	num, scale := strings.TrimSpace(s), 1.0
	matched := false
	for _, u := range bitUnits {
		if strings.HasSuffix(strings.ToLower(num), u.suffix) {
			num, scale, matched = num[:len(num)-len(u.suffix)], u.scale, true
			break
		}
	}
	for _, u := range byteUnits {
		if !matched && strings.HasSuffix(num, u.suffix) {
			num, scale, matched = num[:len(num)-len(u.suffix)], u.scale, true
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("netsim: bad bandwidth %q (want e.g. 10mbit, 500kbit, 64kB or bytes per second)", s)
	}
	bps := math.Ceil(v * scale)
	if bps >= math.MaxInt64 {
		return 0, fmt.Errorf("netsim: bandwidth %q too large", s)
	}
	return int64(bps), nil
}
