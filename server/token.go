package server

import (
	"fmt"
	"sync/atomic"

	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/transport"
)

// Token refusals, by reason; the table is never modified.
const (
	tokenMissing   = iota // plaintext connection, or a handshake without a token
	tokenWrongRoom        // the token admits to another room
	tokenReasons
)

var tokenReasonNames = [tokenReasons]string{"missing", "wrong_room"}

// tokenCounts are the joins refused for their connect token, by reason.
type tokenCounts [tokenReasons]atomic.Uint64

func (t *tokenCounts) snapshot() map[string]uint64 {
	out := make(map[string]uint64, tokenReasons)
	for i, name := range tokenReasonNames {
		out[name] = t[i].Load()
	}
	return out
}

// admitToken checks, when Config.RequireToken is set, that c's handshake
// carried a connect token for room. The handshake has verified the rest:
// the matchmaker's signature, this server's key, the expiry and that the
// peer holds the player key the token names. It returns a refusal detail,
// or "" to admit.
func (s *Server) admitToken(c *transport.Conn, room string) string {
	if !s.cfg.RequireToken {
		return ""
	}
	sec, ok := c.Security()
	switch {
	case !ok || sec.Token == nil:
		s.counters.tokens[tokenMissing].Add(1)
		return "this relay admits only players with a connect token from its matchmaker"
	case !sec.Token.ForRoom(room):
		s.counters.tokens[tokenWrongRoom].Add(1)
		return fmt.Sprintf("the connect token is for another room than %q", room)
	}
	return ""
}

// refuseToken refuses a join for its token.
func (s *Server) refuseToken(c *transport.Conn, detail string) error {
	return s.refuse(c, join.RefuseToken, detail)
}
