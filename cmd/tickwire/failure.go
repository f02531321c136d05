package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/tickwire/tickwire/secure"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/tracker"
	"github.com/tickwire/tickwire/transport"
)

// The exit codes of every command (docs/exit-codes.md).
const (
	exitOK      = 0 // the command did its work
	exitFailed  = 1 // the work failed: not in sync, parity lost, a check failed
	exitUsage   = 2 // a usage or configuration error
	exitConnect = 3 // could not reach or join a server
)

// errConfig marks a bad configuration file or value; main exits with
// status 2 for it, as for errUsage.
var errConfig = errors.New("configuration error")

// connectError is a client's failure to reach or join the server at addr
// before any match was played; main exits with status 3 for it. tracker
// marks the tracker a join code is resolved at (an HTTP server), not a
// game server.
type connectError struct {
	addr    string
	err     error
	tracker bool
}

func (e *connectError) Error() string { return e.err.Error() }
func (e *connectError) Unwrap() error { return e.err }

// failure is how a command's error is told: its kind (the "kind" of the
// --json error object), one line naming the cause, what to try, and the
// exit code.
type failure struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	code    int
}

// explain tells err of command name.
func explain(name string, err error) failure {
	var ce *connectError
	switch {
	case errors.Is(err, errUsage):
		return failure{Kind: "usage", Message: trimSentinel(err, errUsage), code: exitUsage,
			Hint: fmt.Sprintf("run `tickwire help %s` for its flags and examples", name)}
	case errors.Is(err, errConfig):
		return failure{Kind: "config", Message: trimSentinel(err, errConfig), code: exitUsage,
			Hint: "see docs/serve.md for every key; `tickwire serve --config FILE --check-config` checks a file"}
	case errors.As(err, &ce) && ce.tracker:
		f := explainTracker(ce.addr, ce.err)
		f.code = exitConnect
		return f
	case errors.As(err, &ce):
		f := explainConnect(ce.addr, ce.err)
		f.code = exitConnect
		return f
	}
	return failure{Kind: "failed", Message: err.Error(), code: exitFailed}
}

// explainConnect names why a client could not reach or join addr.
func explainConnect(addr string, err error) failure {
	var dns *net.DNSError
	var je *join.JoinError
	switch {
	case errors.As(err, &dns):
		return failure{Kind: "resolve", Message: fmt.Sprintf("cannot resolve %q: %v", dns.Name, dns.Err),
			Hint: "check the host name in --server"}
	case errors.Is(err, syscall.ECONNREFUSED):
		return failure{Kind: "unreachable", Message: fmt.Sprintf("%s refused the connection: nothing listens on that UDP port", addr),
			Hint: fmt.Sprintf("is `tickwire serve` running on %s?", addr)}
	case errors.Is(err, transport.ErrUnreachable):
		return failure{Kind: "unreachable", Message: fmt.Sprintf("%s is unreachable: %v", addr, errors.Unwrap(err)),
			Hint: "check the address in --server and the network between"}
	case errors.Is(err, secure.ErrServerKeyMismatch):
		return failure{Kind: "server-key", Message: fmt.Sprintf("the server at %s proves another key than --server-key", addr),
			Hint: "check --server-key: `tickwire serve` logs its key (public_key) when it starts"}
	case errors.Is(err, secure.ErrVersion):
		return failure{Kind: "version", Message: fmt.Sprintf("%s speaks another protocol version: %s", addr, errorFrom(err, secure.ErrVersion)),
			Hint: "run client and server of the same tickwire release (`tickwire version` lists the versions it speaks)"}
	case errors.As(err, &je):
		return failure{Kind: "refused", Message: fmt.Sprintf("the server refused the join: %s: %s", je.Reason, je.Detail),
			Hint: refusalHint(je.Reason)}
	case errors.Is(err, secure.ErrRefused):
		return failure{Kind: "refused", Message: "the server refused the connection: " + refusedReason(err),
			Hint: "a server run with --matchmaker-key admits only players with its connect token (--token, --identity)"}
	case errors.Is(err, transport.ErrTimeout):
		return failure{Kind: "timeout", Message: fmt.Sprintf("no answer from %s: %v", addr, err),
			Hint: fmt.Sprintf("is `tickwire serve` running on %s, and do both ends agree on --insecure?", addr)}
	}
	return failure{Kind: "connect", Message: fmt.Sprintf("could not join %s: %v", addr, err)}
}

// explainTracker names why the tracker at url did not resolve a join
// code.
func explainTracker(url string, err error) failure {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return failure{Kind: "resolve", Message: fmt.Sprintf("cannot resolve %q: %v", dns.Name, dns.Err),
			Hint: "check the host name in --tracker"}
	case errors.Is(err, syscall.ECONNREFUSED):
		return failure{Kind: "unreachable", Message: fmt.Sprintf("%s refused the connection: nothing listens there", url),
			Hint: fmt.Sprintf("is `tickwire tracker` running at %s?", url)}
	case errors.Is(err, tracker.ErrCodeNotFound):
		return failure{Kind: "refused", Message: fmt.Sprintf("the tracker at %s has %s", url, strings.TrimPrefix(tracker.ErrCodeNotFound.Error(), "tracker: ")),
			Hint: "ask the host for a new join code"}
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	return failure{Kind: "connect", Message: fmt.Sprintf("could not resolve the join code at %s: %s", url, first)}
}

// refusalHint is what to try after the server refused a join.
func refusalHint(r join.RefusalReason) string {
	switch r {
	case join.RefuseRoomFull, join.RefuseSizeMismatch:
		return "choose another --room, or the room's --room-size"
	case join.RefuseModelUnavailable, join.RefuseModelMismatch:
		return "choose the --mode the room (or the server) plays: `tickwire serve --check-config` lists its models"
	case join.RefuseServerFull, join.RefuseTooManyRooms:
		return "try again later, or ask the operator to raise --max-games"
	case join.RefuseToken:
		return "ask the matchmaker for a connect token for this room (--token)"
	}
	return ""
}

// trimSentinel is err's text without sentinel's prefix ("usage error: ").
func trimSentinel(err, sentinel error) string {
	return strings.TrimPrefix(err.Error(), sentinel.Error()+": ")
}

// errorFrom is err's text after sentinel's ("…: sentinel: rest" gives
// "rest"), or all of it.
func errorFrom(err, sentinel error) string {
	s := err.Error()
	if _, rest, ok := strings.Cut(s, sentinel.Error()+": "); ok {
		return rest
	}
	return s
}

// refusedReason is the reason of a handshake the server refused, as
// the server gave it.
func refusedReason(err error) string {
	return strings.TrimPrefix(errorFrom(err, secure.ErrRefused), "secure: ")
}

// report prints f for command name: the line and the hint on stderr and,
// with asJSON, the error object on stdout.
func (f failure) report(name string, asJSON bool, stdout, stderr io.Writer) {
	prefix := "tickwire"
	if name != "" {
		prefix += " " + name
	}
	fmt.Fprintf(stderr, "%s: %s\n", prefix, f.Message)
	if f.Hint != "" {
		fmt.Fprintln(stderr, f.Hint)
	}
	if asJSON {
		_ = json.NewEncoder(stdout).Encode(struct {
			Error failure `json:"error"`
		}{f})
	}
}

// wantsJSON reports whether args ask for JSON output (--json).
func wantsJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--json", "-json", "--json=true", "-json=true":
			return true
		case "--":
			return false
		}
	}
	return false
}
