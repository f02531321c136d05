package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/tickwire/tickwire/records"
)

// defaultDB is the match database's default path (server_config.toml's
// relay.db, --db).
const defaultDB = "tickwire.db"

// flagArgs makes fs.Arg and fs.NArg report pos.
func flagArgs(fs *flag.FlagSet, pos []string) *flag.FlagSet {
	fs.Parse(append([]string{"--"}, pos...))
	return fs
}

// runMatches reads the match database: list, show ID, verify FILE.
func runMatches(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: tickwire matches list|show ID|verify FILE [--db FILE] [--json]", errUsage)
	}
	sub, args := args[0], args[1:]
	if isHelpFlag(sub) {
		return errHelp
	}
	fs := flag.NewFlagSet("matches "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", defaultDB, "the server's match database")
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", 50, "list: the newest N matches")
	key := fs.String("key", "", "verify: the server's Ed25519 public key (hex) the result must be signed by")
	// Flags may come before or after the argument.
	if err := parseAround(fs, args); err != nil {
		return err
	}
	switch sub {
	case "list":
		if fs.NArg() != 0 {
			return fmt.Errorf("%w: matches list takes no argument", errUsage)
		}
		d, err := records.OpenReadOnly(ctx, *db)
		if err != nil {
			return dbFlagError(*db, err)
		}
		defer d.Close()
		ms, err := d.List(ctx, *limit)
		if err != nil {
			return err
		}
		if *asJSON {
			if ms == nil {
				ms = []records.Record{}
			}
			return json.NewEncoder(stdout).Encode(ms)
		}
		tw := tabwriter.NewWriter(stdout, 2, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "id\troom\tmodel\tstarted\tticks\toutcome\tfinal hash")
		for _, m := range ms {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", m.ID, m.Room, m.NetworkModel, m.StartedAt.Format(time.DateTime), m.Ticks, m.Outcome, m.FinalHash)
		}
		return tw.Flush()
	case "show":
		if fs.NArg() != 1 {
			return fmt.Errorf("%w: matches show ID", errUsage)
		}
		id, err := strconv.ParseInt(fs.Arg(0), 10, 64)
		if err != nil {
			return fmt.Errorf("%w: match id %q is not a number", errUsage, fs.Arg(0))
		}
		d, err := records.OpenReadOnly(ctx, *db)
		if err != nil {
			return dbFlagError(*db, err)
		}
		defer d.Close()
		m, err := d.Get(ctx, id)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	case "verify":
		if fs.NArg() != 1 {
			return fmt.Errorf("%w: matches verify FILE", errUsage)
		}
		b, err := os.ReadFile(fs.Arg(0))
		if err != nil {
			return err
		}
		var c records.Certificate
		if err := json.Unmarshal(b, &c); err != nil {
			return fmt.Errorf("%s: not a match result: %v", fs.Arg(0), err)
		}
		want, err := optionalKey("--key", *key)
		if err != nil {
			return err
		}
		if err := records.Verify(c, want); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "valid: match %d (%s, %s), %s after %d ticks, signed by %s\n", c.Record.ID, c.Record.Room,
			c.Record.NetworkModel, c.Record.Outcome, c.Record.Ticks, c.ServerKey)
		return nil
	}
	return fmt.Errorf("%w: unknown matches subcommand %q (list, show, verify)", errUsage, sub)
}
