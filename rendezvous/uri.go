package rendezvous

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tickwire/tickwire/tracker"
)

// URIPrefix starts a join URI: tickwire://join/CODE@RENDEZVOUS_ADDR.
const URIPrefix = "tickwire://join/"

// ErrBadURI is a string that is not a join URI.
var ErrBadURI = errors.New("rendezvous: not a join URI (tickwire://join/CODE@HOST:PORT)")

// JoinURI is the URI a host shares: its code and its rendezvous.
func JoinURI(code, rendezvous string) string { return URIPrefix + code + "@" + rendezvous }

// ParseJoinURI splits a join URI into its code (normalised) and the
// rendezvous's address.
func ParseJoinURI(s string) (code, rendezvous string, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), URIPrefix)
	if !ok {
		return "", "", ErrBadURI
	}
	c, addr, ok := strings.Cut(rest, "@")
	if !ok || addr == "" {
		return "", "", ErrBadURI
	}
	if code, err = tracker.ParseCode(c); err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrBadURI, err)
	}
	return code, addr, nil
}
