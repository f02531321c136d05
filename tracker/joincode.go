package tracker

import (
	"crypto/rand"
	"errors"
	"strings"
)

// codeAlphabet has no look-alikes: no 0/O, 1/I/L, U.
const codeAlphabet = "23456789ABCDEFGHJKMNPQRSTVWXYZ"

const (
	codePrefix = "TICK-"
	codeLen    = 4
)

// ErrBadCode is a string that is not a join code.
var ErrBadCode = errors.New("tracker: not a join code (TICK-XXXX)")

// NewCode draws a random join code.
func NewCode() string {
	var b [codeLen]byte
	out := []byte(codePrefix)
	for {
		rand.Read(b[:])
		ok := true
		for _, c := range b {
			// Reject the top of the byte range so every letter is equally likely.
			if int(c) >= 256/len(codeAlphabet)*len(codeAlphabet) {
				ok = false
				break
			}
		}
		if ok {
			break
		}
	}
	for _, c := range b {
		out = append(out, codeAlphabet[int(c)%len(codeAlphabet)])
	}
	return string(out)
}

// ParseCode normalises s to a join code: case-insensitive, the dash and
// the prefix optional ("tick7k3m", "7K3M" and "TICK-7K3M" are one code).
func ParseCode(s string) (string, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	u = strings.TrimPrefix(strings.TrimPrefix(u, "TICK"), "-")
	if len(u) != codeLen {
		return "", ErrBadCode
	}
	for i := range len(u) {
		if !strings.ContainsRune(codeAlphabet, rune(u[i])) {
			return "", ErrBadCode
		}
	}
	return codePrefix + u, nil
}
