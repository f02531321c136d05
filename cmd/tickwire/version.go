package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/secure"
	"github.com/tickwire/tickwire/transport"
)

// buildVersion is what "tickwire version" prints (--json: this object).
type buildVersion struct {
	Module     string `json:"module"`
	Version    string `json:"version"`
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commit_time,omitempty"`
	Modified   bool   `json:"modified,omitempty"`
	Go         string `json:"go"`
	// Wire are the versions every connection speaks, whatever its
	// network model.
	Wire map[string]int `json:"wire"`
	// Models are the network models, each with the versions of its own
	// formats.
	Models []modelVersion `json:"models"`
}

// modelVersion is one network model in "tickwire version".
type modelVersion struct {
	Mode         string `json:"mode"`
	NetworkModel string `json:"network_model"`
	// Formats are the model's versioned formats beyond the shared wire
	// (lockstep's order codec); none: its messages carry no version,
	// the join's network model name selects them.
	Formats map[string]int `json:"formats,omitempty"`
}

// wireVersioned is a mode whose messages have versioned formats.
type wireVersioned interface {
	wireVersions() map[string]int
}

// readVersion gathers the build information and the wire versions.
func readVersion() buildVersion {
	v := buildVersion{Module: "github.com/tickwire/tickwire", Version: "(unknown)", Go: "(unknown)",
		Wire: map[string]int{
			"transport_datagram": transport.DatagramVersion,
			"transport_hello":    transport.HelloVersion,
			"secure_handshake":   secure.Version,
		}}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Module, v.Version, v.Go = bi.Main.Path, bi.Main.Version, bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.time":
				v.CommitTime = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	for _, m := range modes() {
		mv := modelVersion{Mode: m.name(), NetworkModel: m.modelName()}
		if w, ok := m.(wireVersioned); ok {
			mv.Formats = w.wireVersions()
		}
		v.Models = append(v.Models, mv)
	}
	return v
}

// runVersion is "tickwire version" (and "tickwire --version").
func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	v := readVersion()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(v)
	}
	fmt.Fprintf(stdout, "tickwire %s (%s)\n", v.Version, v.Module)
	if v.Commit != "" {
		dirty := ""
		if v.Modified {
			dirty = ", modified"
		}
		fmt.Fprintf(stdout, "commit %s (%s%s)\n", v.Commit, v.CommitTime, dirty)
	}
	fmt.Fprintf(stdout, "go %s\n", v.Go)
	fmt.Fprintf(stdout, "wire: %s\n", formatVersions(v.Wire))
	for _, m := range v.Models {
		formats := "no versioned formats of its own (the join names the model)"
		if len(m.Formats) > 0 {
			formats = formatVersions(m.Formats)
		}
		fmt.Fprintf(stdout, "  %-10s %-18s %s\n", m.Mode, m.NetworkModel, formats)
	}
	return nil
}

// formatVersions is "name version, …" in name order.
func formatVersions(vs map[string]int) string {
	names := make([]string, 0, len(vs))
	for n := range vs {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, vs[n])
	}
	return strings.Join(parts, ", ")
}

// wireVersions: lockstep's orders travel in the native order codec.
func (lockstepMode) wireVersions() map[string]int {
	return map[string]int{"order_codec": protocol.NativeVersion}
}
