package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/tickwire/tickwire/internal/atomicfile"
	"github.com/tickwire/tickwire/records"
	"github.com/tickwire/tickwire/server"
	"github.com/tickwire/tickwire/transport"
)

// Certified match results: the server signs each ended match's record
// with its key and sends it to the players (server.Config.Certify, a
// join.MatchResult); each bot keeps it, bot --json prints it and
// --certificate-out saves it; "tickwire matches verify" checks it.

// resultKey is the key a server signs match results with: its transport
// identity, or on a plaintext server (--insecure) the --key file's, or a
// new one each run.
func (s securityFlags) resultKey(sc *transport.SecurityConfig) (ed25519.PrivateKey, error) {
	switch {
	case sc != nil:
		return sc.Identity, nil
	case s.keyFile != "":
		return loadOrCreateKey(s.keyFile)
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	return key, err
}

// recordOf is the match record of a match event: its start, and its end
// once it ended.
func recordOf(ev server.MatchEvent) records.Record {
	r := records.Record{Room: ev.Room, NetworkModel: ev.NetworkModel, MatchType: ev.MatchType, StartedAt: ev.Started.UTC(),
		Players: []records.Player{}, Removals: []records.Removal{}}
	for _, p := range ev.Players {
		rp := records.Player{Player: int(p.Player)}
		if p.PublicKey != nil {
			rp.PublicKey = hex.EncodeToString(p.PublicKey)
		}
		r.Players = append(r.Players, rp)
	}
	if ev.Ended {
		r.EndedAt, r.Ticks, r.Outcome, r.FinalHash = ev.EndedAt.UTC(), ev.Tick, ev.Outcome, ev.FinalHash
	}
	return r
}

// certifier is a server's Config.Certify: the ended match's record signed
// with key, as the JSON "matches verify" reads. row, if not nil, gives the
// row the match database holds for the match, certified instead of the
// event's record.
func certifier(key ed25519.PrivateKey, row func(server.MatchEvent) (records.Record, bool)) func(server.MatchEvent) ([]byte, error) {
	return func(ev server.MatchEvent) ([]byte, error) {
		r := recordOf(ev)
		if row != nil {
			if db, ok := row(ev); ok {
				r = db
			}
		}
		c, err := records.Certify(r, key)
		if err != nil {
			return nil, err
		}
		return json.Marshal(c)
	}
}

// certificates of a bot run: the first one received is the run's (every
// player of a room receives the same), and how many bots received one.
func firstCertificate(certs []json.RawMessage) (json.RawMessage, int) {
	var first json.RawMessage
	n := 0
	for _, c := range certs {
		if c == nil {
			continue
		}
		n++
		if first == nil {
			first = c
		}
	}
	return first, n
}

// withCertificate adds "certificate" (the run's), "certified" (bots that
// received one) and, if check is not nil, "certificate_check" to the JSON
// object obj, first.
func withCertificate(obj []byte, certs []json.RawMessage, check *certificateCheck) []byte {
	first, n := firstCertificate(certs)
	if first == nil || len(obj) < 2 || obj[0] != '{' {
		return obj
	}
	head := fmt.Appendf(nil, `{"certificate":%s,"certified":%d`, first, n)
	if check != nil {
		c, err := json.Marshal(check)
		if err != nil {
			return obj
		}
		head = fmt.Appendf(head, `,"certificate_check":%s`, c)
	}
	if rest := bytes.TrimSpace(obj[1:]); !bytes.Equal(rest, []byte("}")) {
		head = append(head, ',')
	}
	return append(head, obj[1:]...)
}

// saveCertificate writes the run's certificate to path (atomically), or
// fails if no bot received one.
func saveCertificate(path string, certs []json.RawMessage) error {
	first, _ := firstCertificate(certs)
	if first == nil {
		return fmt.Errorf("--certificate-out %s: no bot received a match result", path)
	}
	return atomicfile.Write(path, append(bytes.Clone(first), '\n'), 0o644)
}

// certsOf lists the certificates of a run's players, in their order.
func certsOf[P any](players []P, cert func(*P) json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, len(players))
	for i := range players {
		out[i] = cert(&players[i])
	}
	return out
}
