package layering

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/tickwire/tickwire"

// dep is one package in a dependency listing.
type dep struct {
	path     string
	standard bool
}

// rule says what a package's transitive dependencies may be.
type rule struct {
	pkg string
	// exact limits the rule to pkg itself, without its subpackages.
	exact bool
	// allowed reports whether pkg may depend on d; it returns the reason
	// when it may not.
	allowed func(d dep) (ok bool, why string)
}

// networking reports whether a standard library package is networking code.
func networking(path string) bool {
	return path == "net" || strings.HasPrefix(path, "net/") || path == "crypto/tls"
}

// testCode reports whether a standard library package exists for tests.
func testCode(path string) bool {
	return path == "testing" || strings.HasPrefix(path, "testing/")
}

func under(path string, pkgs ...string) bool {
	for _, p := range pkgs {
		full := module + "/" + p
		if path == full || strings.HasPrefix(path, full+"/") {
			return true
		}
	}
	return false
}

func stdlibOnly(d dep) (bool, string) {
	switch {
	case !d.standard:
		return false, "only the standard library is allowed"
	case networking(d.path):
		return false, "networking code is not allowed"
	}
	return true, ""
}

// gamePackages are the packages that know about the game; the transport
// layer must not.
var gamePackages = []string{"protocol", "sim", "lockstep", "relay", "fogauth", "predict", "statesync"}

func rules() []rule {
	return []rule{
		{pkg: "wire", allowed: stdlibOnly},
		{pkg: "protocol", allowed: stdlibOnly},
		{pkg: "netsim", allowed: func(d dep) (bool, string) {
			if d.standard {
				return true, ""
			}
			return false, "only the standard library is allowed"
		}},
		{pkg: "sim", allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "the simulation never imports networking code"
			case d.standard, under(d.path, "sim", "protocol", "wire"):
				return true, ""
			case strings.HasPrefix(d.path, "github.com/cespare/xxhash/"), strings.HasPrefix(d.path, "github.com/zeebo/xxh3"):
				return true, ""
			}
			return false, "sim may import only protocol, wire, the standard library and xxHash"
		}},
		{pkg: "transport", allowed: func(d dep) (bool, string) {
			if under(d.path, gamePackages...) {
				return false, "the transport imports no game package"
			}
			return true, ""
		}},
		// The shipped binary links no test code.
		{pkg: "cmd/tickwire", exact: true, allowed: func(d dep) (bool, string) {
			if testCode(d.path) {
				return false, "the binary must not link test code"
			}
			return true, ""
		}},
		// RelayCore is a pure state machine: sockets live in relay/server.
		{pkg: "relay", exact: true, allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "RelayCore is pure: no networking code"
			case d.standard, under(d.path, "protocol", "wire", "relay/msg"):
				return true, ""
			}
			return false, "RelayCore may import only protocol, wire, relay/msg and the standard library"
		}},
		// The fog-authoritative room and client cores are pure: no
		// sockets, no transport; the simulation only through its public
		// API.
		{pkg: "fogauth", exact: true, allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "the fog-authoritative core is pure: no networking code"
			case d.standard, under(d.path, "protocol", "wire", "sim"):
				return true, ""
			case strings.HasPrefix(d.path, "github.com/cespare/xxhash/"):
				return true, ""
			}
			return false, "the fog-authoritative core may import only sim, protocol, wire, xxHash and the standard library"
		}},
		// The fog-authoritative server shell is a model behind the seam:
		// it links no lockstep code.
		{pkg: "fogauth/fogserver", allowed: func(d dep) (bool, string) {
			if d.path == module+"/relay" || under(d.path, "relay/server", "lockstep", "relay/msg") && !under(d.path, "relay/server/room") {
				return false, "a network model behind the seam links no lockstep code"
			}
			return true, ""
		}},
		{pkg: "statesync/msg", allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "state-sync messages are pure: no networking code"
			case d.standard, under(d.path, "wire"):
				return true, ""
			}
			return false, "statesync/msg may import only wire and the standard library"
		}},
		// The state-sync cores are pure and know no game: a game plugs in
		// through statesync.Engine.
		{pkg: "statesync", exact: true, allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "the state-sync core is pure: no networking code"
			case d.standard, under(d.path, "wire", "statesync/msg"):
				return true, ""
			case strings.HasPrefix(d.path, "github.com/klauspost/compress"), strings.HasPrefix(d.path, "github.com/OneOfOne/xxhash"):
				return true, ""
			}
			return false, "the state-sync core may import only wire, statesync/msg, zstd, xxHash32 and the standard library"
		}},
		// The adapter joins the state-sync core and the action game; it is
		// still simulation-side code.
		{pkg: "statesync/actiongame", allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "the game adapter never imports networking code"
			case under(d.path, "transport", "netsim", "secure", "relay"):
				return false, "the game adapter imports no network layer"
			}
			return true, ""
		}},
		// The state-sync room shell plugs into the seam and knows no game
		// and no lockstep code.
		{pkg: "statesync/host", allowed: func(d dep) (bool, string) {
			switch {
			case d.path == module+"/relay" || under(d.path, "relay/msg", "lockstep", "sim") ||
				under(d.path, "relay/server") && !under(d.path, "relay/server/room"):
				return false, "the state-sync shell uses only the model seam, no lockstep or game code"
			}
			return true, ""
		}},
		// The network model seam: a model's package imports it without
		// linking the lockstep relay.
		{pkg: "relay/server/room", allowed: func(d dep) (bool, string) {
			if d.path == module+"/relay" || under(d.path, "relay/server", "lockstep", "relay/msg") && !under(d.path, "relay/server/room") {
				return false, "the model seam links no lockstep code"
			}
			return true, ""
		}},
		// The client does not link the server: what both need (the lane
		// table) lives below both, in relay/lanes. A listen server
		// imports lockstep/hostrelay.
		{pkg: "lockstep", exact: true, allowed: func(d dep) (bool, string) {
			if under(d.path, "relay/server") {
				return false, "the lockstep client does not link the relay server"
			}
			return true, ""
		}},
		// The lane table is shared by every network model, so it links no
		// lockstep code.
		{pkg: "relay/lanes", exact: true, allowed: func(d dep) (bool, string) {
			if d.path == module+"/relay" || under(d.path, "relay/msg", "relay/server", "lockstep") {
				return false, "the lane table links no lockstep code: every network model uses it"
			}
			return true, ""
		}},
		// The prediction core is pure and game-agnostic: the game plugs in
		// through predict.Game, sockets live in predict/netlayer.
		{pkg: "predict", exact: true, allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "the prediction core is pure: no networking code"
			case d.standard, under(d.path, "wire", "protocol"):
				return true, ""
			}
			return false, "the prediction core may import only wire, protocol and the standard library"
		}},
		// A prediction room plugs into the server through the seam only.
		{pkg: "predict/predictserver", allowed: func(d dep) (bool, string) {
			if d.path == module+"/relay" || under(d.path, "relay/server", "lockstep", "relay/msg", "sim") && !under(d.path, "relay/server/room") {
				return false, "a prediction room links no lockstep code and no game"
			}
			return true, ""
		}},
		// The game adapter is simulation code: no networking either.
		{pkg: "predict/actiongame", exact: true, allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "a game adapter never imports networking code"
			case d.standard, d.path == module+"/predict", under(d.path, "sim", "protocol", "wire"),
				strings.HasPrefix(d.path, "github.com/cespare/xxhash/"):
				return true, ""
			}
			return false, "a game adapter may import only predict, sim, protocol, wire, xxHash and the standard library"
		}},
	}
}

// violations checks deps of pkg against r.
func violations(r rule, deps []dep) []string {
	var bad []string
	self := module + "/" + r.pkg
	for _, d := range deps {
		if d.path == self || (!r.exact && strings.HasPrefix(d.path, self+"/")) {
			continue
		}
		if ok, why := r.allowed(d); !ok {
			bad = append(bad, d.path+": "+why)
		}
	}
	return bad
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	return dir
}

// listDeps runs go list -deps on pattern (the package and its subpackages).
func listDeps(t *testing.T, root, pattern string) []dep {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", pattern)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list %s: %v\n%s", pattern, err, msg)
	}
	var deps []dep
	for line := range strings.Lines(string(out)) {
		path, std, _ := strings.Cut(strings.TrimSpace(line), " ")
		deps = append(deps, dep{path: path, standard: std == "true"})
	}
	return deps
}

func TestLayering(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is needed to list dependencies")
	}
	root := moduleRoot(t)
	for _, r := range rules() {
		t.Run(r.pkg, func(t *testing.T) {
			if err := packageExists(root, r.pkg); err != nil {
				t.Fatal(err)
			}
			pattern := "./" + r.pkg + "/..."
			if r.exact {
				pattern = "./" + r.pkg
			}
			for _, v := range violations(r, listDeps(t, root, pattern)) {
				t.Errorf("%s depends on %s", r.pkg, v)
			}
		})
	}
}

// packageExists reports why the package a rule names is missing, or nil:
// a rule about a package that was moved or deleted checks nothing, so it
// must fail rather than pass.
func packageExists(root, pkg string) error {
	if _, err := os.Stat(filepath.Join(root, pkg)); err != nil {
		return fmt.Errorf("a layering rule names package %s, which does not exist: update the rule: %v", pkg, err)
	}
	return nil
}

// TestMissingPackageFails proves a rule naming a package that does not
// exist fails instead of being skipped.
func TestMissingPackageFails(t *testing.T) {
	root := moduleRoot(t)
	if err := packageExists(root, "no/such/package"); err == nil {
		t.Error("a rule for a missing package passes")
	}
	for _, r := range rules() {
		if err := packageExists(root, r.pkg); err != nil {
			t.Error(err)
		}
	}
}

// TestRulesCatchForbiddenImports proves the rules fail on the imports they
// forbid, so TestLayering cannot pass vacuously.
func TestRulesCatchForbiddenImports(t *testing.T) {
	forbidden := map[string][]dep{
		"wire":                  {{path: "github.com/klauspost/compress/zstd"}, {path: "net", standard: true}},
		"protocol":              {{path: module + "/wire"}, {path: "net/netip", standard: true}},
		"netsim":                {{path: module + "/transport"}},
		"sim":                   {{path: module + "/transport"}, {path: module + "/netsim"}, {path: "net", standard: true}, {path: "github.com/some/lib"}},
		"transport":             {{path: module + "/protocol"}, {path: module + "/sim"}, {path: module + "/relay/core"}},
		"relay":                 {{path: module + "/transport"}, {path: module + "/relay/server"}, {path: "net", standard: true}, {path: "github.com/some/lib"}},
		"predict":               {{path: module + "/sim/action"}, {path: module + "/sim"}, {path: module + "/transport"}, {path: module + "/predict/netlayer"}, {path: "net", standard: true}},
		"predict/predictserver": {{path: module + "/relay/msg"}, {path: module + "/relay/server"}, {path: module + "/sim/action"}},
		"predict/actiongame":    {{path: module + "/transport"}, {path: module + "/predict/netlayer"}, {path: "net/netip", standard: true}},
		"statesync/msg":         {{path: module + "/protocol"}, {path: "net", standard: true}},
		"statesync":             {{path: module + "/sim"}, {path: module + "/transport"}, {path: "net", standard: true}, {path: "github.com/some/lib"}},
		"statesync/actiongame":  {{path: module + "/transport"}, {path: "net", standard: true}},
		"statesync/host":        {{path: module + "/relay/msg"}, {path: module + "/relay/server"}, {path: module + "/sim/action"}},
		"relay/server/room": {{path: module + "/relay"}, {path: module + "/relay/server"}, {path: module + "/relay/msg"},
			{path: module + "/lockstep"}},
		"lockstep":          {{path: module + "/relay/server"}},
		"relay/lanes":       {{path: module + "/relay"}, {path: module + "/relay/msg"}},
		"fogauth":           {{path: module + "/transport"}, {path: module + "/netsim"}, {path: module + "/relay/server/room"}, {path: "net", standard: true}},
		"fogauth/fogserver": {{path: module + "/relay"}, {path: module + "/relay/server"}, {path: module + "/lockstep"}, {path: module + "/relay/msg"}},
		"cmd/tickwire":      {{path: "testing", standard: true}, {path: "testing/synctest", standard: true}},
	}
	allowed := map[string][]dep{
		"sim":                {{path: module + "/protocol"}, {path: module + "/wire"}, {path: "github.com/cespare/xxhash/v2"}, {path: "sort", standard: true}},
		"transport":          {{path: module + "/wire"}, {path: "github.com/klauspost/compress/zstd"}, {path: "net", standard: true}},
		"relay":              {{path: module + "/protocol"}, {path: module + "/relay/msg"}, {path: "crypto/sha256", standard: true}},
		"predict":            {{path: module + "/wire"}, {path: "time", standard: true}},
		"predict/actiongame": {{path: module + "/predict"}, {path: module + "/sim/action"}, {path: module + "/sim"}},
		"statesync":          {{path: module + "/statesync/msg"}, {path: "github.com/klauspost/compress/zstd"}, {path: "github.com/OneOfOne/xxhash"}},
		"relay/server/room": {{path: module + "/transport"}, {path: module + "/protocol"}, {path: module + "/relay/admin"},
			{path: "net", standard: true}},
		"lockstep":          {{path: module + "/relay/lanes"}, {path: module + "/relay"}, {path: module + "/transport"}},
		"relay/lanes":       {{path: module + "/transport"}},
		"fogauth":           {{path: module + "/sim"}, {path: module + "/protocol"}, {path: "github.com/cespare/xxhash/v2"}, {path: "encoding/binary", standard: true}},
		"fogauth/fogserver": {{path: module + "/relay/server/room"}, {path: module + "/transport"}, {path: module + "/fogauth"}, {path: module + "/sim/scenario"}},
		"cmd/tickwire":      {{path: module + "/relay/server"}, {path: "net", standard: true}, {path: "github.com/prometheus/client_golang/prometheus"}},
	}
	for _, r := range rules() {
		for _, d := range forbidden[r.pkg] {
			if len(violations(r, []dep{d})) == 0 {
				t.Errorf("rule for %s lets it import %s", r.pkg, d.path)
			}
		}
		if bad := violations(r, allowed[r.pkg]); len(bad) > 0 {
			t.Errorf("rule for %s rejects allowed imports: %v", r.pkg, bad)
		}
	}
	if !slices.Contains(gamePackages, "protocol") {
		t.Error("protocol must count as a game package")
	}
}
