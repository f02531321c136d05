package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"os"
	"reflect"
	"strings"
	"syscall"
	"time"
)

// The command line's grammar, the same for every command: a flag that
// takes a value and has none is an error (missingValue); a bad value
// names its flag (flagMistake), a duration the units it takes; a bad or
// busy address names its flag (addrFlagError); all exit 2.

// missingValue finds a flag of fs that takes a value but is followed by
// nothing, or by another of fs's flags ("--mode --ticks 30"): the flag
// package would take the next flag for the value, or fail on the last
// with its own words.
func missingValue(fs *flag.FlagSet, args []string) error {
	for i, a := range args {
		if a == "--" {
			return nil
		}
		name, ok := flagName(a)
		if !ok || strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil || isBool(f) {
			continue
		}
		if i+1 == len(args) {
			return fmt.Errorf("%w: --%s needs a value (%s)", errUsage, name, f.Usage)
		}
		if next, ok := flagName(args[i+1]); ok && fs.Lookup(strings.SplitN(next, "=", 2)[0]) != nil {
			return fmt.Errorf("%w: --%s needs a value before %s (%s)", errUsage, name, args[i+1], f.Usage)
		}
	}
	return nil
}

// flagName is the name of a -flag or --flag argument.
func flagName(a string) (string, bool) {
	if len(a) < 2 || a[0] != '-' || a == "--" {
		return "", false
	}
	name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	return name, name != "" && name[0] != '-'
}

// isBool reports whether f is a boolean flag (one that needs no value).
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// isDuration reports whether f takes a time.Duration.
func isDuration(f *flag.Flag) bool {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	_, ok = g.Get().(time.Duration)
	return ok
}

// durationUnits is what a duration flag's mistake says it takes.
const durationUnits = "a duration with its unit, e.g. 40ms, 1.5s or 2m (units ns, us, ms, s, m, h)"

// addrFlagError tells why the address addr of flag name (e.g.
// "--listen") could not be listened on, as a usage error: an invalid
// port or a missing one, an unknown host, or an address in use (another
// server holds it).
func addrFlagError(name, addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%w: %s %s: the address is in use; is another tickwire serve running?", errUsage, name, addr)
	}
	var ae *net.AddrError
	var dns *net.DNSError
	switch {
	case errors.As(err, &ae):
		return fmt.Errorf("%w: %s %s: %s (want host:port, the port 0..65535)", errUsage, name, addr, ae.Err)
	case errors.As(err, &dns):
		return fmt.Errorf("%w: %s %s: cannot resolve %q", errUsage, name, addr, dns.Name)
	case errors.Is(err, syscall.EADDRNOTAVAIL), errors.Is(err, syscall.EACCES):
		return fmt.Errorf("%w: %s %s: %v", errUsage, name, addr, err)
	}
	return err
}

// dbFlagError tells why the match database path (--db) did not open:
// a file that is not there is a usage error naming the flag.
func dbFlagError(path string, err error) error {
	if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
		return fmt.Errorf("%w: no match database at %s: pass --db FILE, the file `tickwire serve --db FILE` writes", errUsage, path)
	}
	return err
}

// tomlKeys lists the keys a TOML table decoded into v (a struct, or a
// pointer to one) takes, each under prefix: its fields' toml tags, and
// those of its nested tables.
func tomlKeys(prefix string, v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		key := prefix + name
		keys = append(keys, key)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft.PkgPath() != "time" && !strings.HasSuffix(ft.Name(), "Duration") {
			keys = append(keys, tomlKeys(key+".", reflect.New(ft).Interface())...)
		}
	}
	return keys
}
