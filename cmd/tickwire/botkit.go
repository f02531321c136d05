package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tickwire/tickwire/internal/botpool"
	"github.com/tickwire/tickwire/transport"
)

// What the network models' bots share, in "bot --mode M" and in the
// demos: the common flags of bot, the dial of a remote server, playing
// bots side by side and printing their summary.

// dialer connects bot i to the server.
type dialer = botpool.Dial

// botCommon are the options every "tickwire bot --mode M" has.
type botCommon struct {
	// joinTimeout bounds a --join's resolution and route; 0 means
	// defaultJoinTimeout.
	joinTimeout time.Duration
	server      string
	room        string
	players     int
	roomSize    int
	ticks       uint64
	json        bool
	sec         securityFlags
	// spectate: the bots watch instead of playing (a mode that offers
	// --spectate binds it): --players defaults to 1 and --ticks is not
	// needed, as a spectator watches until the match ends.
	spectate bool
	// joinCode and trackerURL: the room comes from a join code resolved
	// at a tracker (--server, --room and --server-key from its answer).
	joinCode, trackerURL string
	// certOut is the file to save the match's certified result in.
	certOut string
	// joinURI: the room comes from a join URI resolved at its rendezvous
	// (lockstep bots only: "bot --join"); joined is the socket and route
	// it found.
	joinURI string
	joined  *joinedRoute
	// keys are the keys the server proved on the run's connections: what
	// the match result is checked against without --server-key.
	keys *serverKeys
}

// botSpec is what a mode sets of the shared bot flags.
type botSpec struct {
	name   string // the flag set's, e.g. "bot --mode fogauth"
	server string // usage of --server
	ticks  string // usage of --ticks
}

// flagSet is a flag set named s.name with the shared bot flags; the mode
// adds its own before calling parse.
func (f *botCommon) flagSet(s botSpec, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(s.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.server, "server", "", s.server)
	fs.StringVar(&f.room, "room", "", "room name (required)")
	fs.IntVar(&f.players, "players", 0, "bot clients in this process (required)")
	fs.Uint64Var(&f.ticks, "ticks", 0, s.ticks)
	fs.IntVar(&f.roomSize, "room-size", 0, "players the room expects (default: --players)")
	fs.BoolVar(&f.json, "json", false, "print one JSON object (with the match's certified result, \"certificate\", when the server sent one)")
	fs.StringVar(&f.certOut, "certificate-out", "", "save the match's certified result, which the server sends when the match ends, in this file (for \"tickwire matches verify\")")
	fs.StringVar(&f.joinCode, "join-code", "", "join the room a join code names (TICK-XXXX), resolved at --tracker: sets --server, --room and --server-key")
	fs.StringVar(&f.trackerURL, "tracker", "", "the tracker that resolves --join-code (https://, or http:// on loopback)")
	f.sec.addClient(fs)
	return fs
}

// parse parses args into fs and checks the shared flags; --room-size
// defaults to --players and is at most maxRoomSize. check, if not nil,
// checks the mode's own before the room size.
func (f *botCommon) parse(fs *flag.FlagSet, args []string, maxRoomSize int, check func() error) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.resolveJoinCode(); err != nil {
		return err
	}
	if err := f.resolveJoinURI(); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case f.server == "" || f.room == "":
		return fmt.Errorf("%w: --server and --room are required", errUsage)
	case f.spectate:
		f.players = max(f.players, 1)
		f.roomSize = max(f.roomSize, f.players)
	case f.players < 1 || f.ticks < 1:
		return fmt.Errorf("%w: --players and --ticks must be at least 1", errUsage)
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	if f.roomSize == 0 {
		f.roomSize = f.players
	}
	if f.roomSize < f.players || f.roomSize > maxRoomSize {
		return fmt.Errorf("%w: --room-size must be between --players and %d", errUsage, maxRoomSize)
	}
	return nil
}

// dialer dials --server over UDP with tcfg (the channels of the server's
// models) and the security of the flags, noting the key the server
// proves on each connection.
func (f *botCommon) dialer(tcfg transport.Config) (dialer, error) {
	var err error
	if tcfg.Security, err = f.sec.clientConfig(); err != nil {
		return nil, err
	}
	if f.joined != nil {
		return f.proven().wrap(f.joined.dial(tcfg)), nil
	}
	return f.proven().wrap(func(ctx context.Context, _ int) (*transport.Conn, error) {
		return transport.DialUDP(ctx, f.server, tcfg)
	}), nil
}

// summary is a mode's report of its bots.
type summary interface {
	// table prints the report for people.
	table(w io.Writer)
	// verdict is nil when the run passed, else the mode's error.
	verdict() error
	// certificates are the match results the bots received (nil for a
	// bot that received none), in the bots' order.
	certificates() []json.RawMessage
}

// report is printReport for "tickwire bot", with the check of the match
// results the bots received (a result that does not verify fails the
// run), then, with --certificate-out, saves the match's certified result.
func (f *botCommon) report(w io.Writer, r summary, header func(io.Writer)) error {
	check := checkCertificates(r.certificates(), f.sec.pinnedKey(), f.proven().list())
	err := errors.Join(printChecked(w, r, f.json, header, check), check.err())
	if f.certOut != "" {
		err = errors.Join(err, saveCertificate(f.certOut, r.certificates()))
	}
	return err
}

// printReport prints r as one JSON object with asJSON (led by the run's
// "certificate" and how many bots were "certified", when one came), else
// header (if not nil) and r's table, and returns r's verdict.
func printReport(w io.Writer, r summary, asJSON bool, header func(io.Writer)) error {
	return printChecked(w, r, asJSON, header, nil)
}

// printChecked is printReport with the check of the run's match results,
// if not nil: "certificate_check" in the JSON, a line under the table.
func printChecked(w io.Writer, r summary, asJSON bool, header func(io.Writer), check *certificateCheck) error {
	if asJSON {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(withCertificate(b, r.certificates(), check), '\n')); err != nil {
			return err
		}
	} else {
		if header != nil {
			header(w)
		}
		r.table(w)
		check.print(w)
	}
	return r.verdict()
}

// noneJoined is, when no bot joined, the first bot's dial or join error
// as a connectError for the server at addr: no match was played, so the
// caller prints no summary and main names the cause (exit status 3).
// nil when a bot joined. joinErrs has each bot's error, nil once joined.
func noneJoined(addr string, joinErrs []error) error {
	for _, err := range joinErrs {
		if err == nil {
			return nil
		}
	}
	if len(joinErrs) == 0 {
		return nil
	}
	return &connectError{addr: addr, err: joinErrs[0]}
}

// collect is get of each bot's report in ps.
func collect[P, T any](ps []P, get func(*P) T) []T {
	out := make([]T, len(ps))
	for i := range ps {
		out[i] = get(&ps[i])
	}
	return out
}

// errStopped is a verdict: bots stopped before the end of the match, so
// whether the clients agree is not judged.
var errStopped = errors.New("bots stopped before the end of the match")

// stoppedEarly is errStopped naming how many bots stopped and the first
// one's reason, or nil if none did. stopped has each bot's error text,
// "" if it played to the end.
func stoppedEarly(stopped []string) error {
	n, first := 0, ""
	for _, s := range stopped {
		if s != "" {
			if n == 0 {
				first = s
			}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d of %d stopped early, the first: %s", errStopped, n, len(stopped), first)
}

// verdictLine is a table's verdict line: yes when ok, "not judged" when
// bots stopped early, else "NO".
func verdictLine(ok bool, stopped error, yes string) string {
	if !ok && stopped != nil {
		return "not judged: " + strings.TrimPrefix(stopped.Error(), errStopped.Error()+": ")
	}
	return yesNo(ok, yes)
}

// yesNo is a table's verdict line: yes when ok, else "NO".
func yesNo(ok bool, yes string) string {
	if ok {
		return yes
	}
	return "NO"
}
