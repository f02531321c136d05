package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tickwire/tickwire/transport/securebench"
)

// measureSecurity returns the security figures of "tickwire bench transport"
// (handshakes per second, AEAD cost, encryption cost on W1) for its JSON
// field "security". d bounds the time spent.
func measureSecurity(ctx context.Context, d time.Duration) (*securebench.Result, error) {
	return securebench.Measure(ctx, d)
}

// writeSecurityText tells the security figures in two lines of text.
func writeSecurityText(w io.Writer, r *securebench.Result) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "security: %.0f handshakes/s; AES-256-GCM per 1,200-byte datagram: seal %.0f ns, open %.0f ns\n",
		r.HandshakesPerSecond, r.SealNs, r.OpenNs)
	fmt.Fprintf(w, "security: W1 CPU per message %.2f µs plain, %.2f µs encrypted: %+.1f%% (the AEAD alone at most %+.1f%%)\n",
		r.W1Plain.CPUPerMsgUs, r.W1Secure.CPUPerMsgUs, r.W1CPUOverheadPercent, r.W1AEADPercent)
}
