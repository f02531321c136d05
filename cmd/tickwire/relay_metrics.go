package main

import (
	"github.com/tickwire/tickwire/secure"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/server/admin"
	"github.com/tickwire/tickwire/transport"
)

// addFigures fills the admin figures that need converting: the by-reason
// counters. (The lockstep model's figures, the broadcast lateness
// histogram among them, are its room.Model.Metrics, in st.AdminMetrics.)
func addFigures(a *admin.Stats, st server.Stats, ls transport.ListenerStats) {
	a.TokenRefusals = st.TokenRefusals
	a.HandshakesRefused = make(map[string]uint64)
	for r, n := range ls.Handshake.Refused {
		if name := refusalLabel(secure.RefusalReason(r)); name != "" {
			a.HandshakesRefused[name] = n
		}
	}
}

// refusalLabel names a handshake refusal reason on /metrics.
func refusalLabel(r secure.RefusalReason) string {
	switch r {
	case secure.RefuseServerFull:
		return "server_full"
	case secure.RefuseTooManyFromIP:
		return "too_many_from_ip"
	case secure.RefuseRateLimited:
		return "rate_limited"
	case secure.RefuseTokenRequired:
		return "token_required"
	case secure.RefuseTokenSignature:
		return "token_signature"
	case secure.RefuseTokenWrongServer:
		return "token_wrong_server"
	case secure.RefuseTokenExpired:
		return "token_expired"
	case secure.RefuseVersion:
		return "version"
	}
	return ""
}
