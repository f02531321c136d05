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
	// name tells two rules of one package apart (the meta-test's key);
	// "" means pkg.
	name string
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

// gamePackages are the packages that know about the game or a network
// model; the transport layer must not.
var gamePackages = []string{"protocol", "sim", "lockstep", "fogauth", "predict", "statesync", "server"}

// models are the network models: each is a tree of packages (pure core,
// client, server model) that imports no other model. examples/echo is the
// example model; the other examples are games over the models.
var models = []string{"lockstep", "fogauth", "predict", "statesync", "examples/echo"}

// otherModel reports whether d belongs to a network model other than self.
func otherModel(self string, d dep) bool {
	for _, m := range models {
		if m != self && under(d.path, m) {
			return true
		}
	}
	return false
}

// noOtherModel is the rule of every model's tree: it imports no other
// network model (what two models share lives in server/..., metrics or
// below: the join exchange is server/join).
func noOtherModel(self string) func(dep) (bool, string) {
	return func(d dep) (bool, string) {
		if otherModel(self, d) {
			return false, "a network model imports no other network model"
		}
		return true, ""
	}
}

// genericServer is the rule of the server's packages: they know no
// network model and no game; a model plugs in through server/room.
func genericServer() func(dep) (bool, string) {
	return func(d dep) (bool, string) {
		if under(d.path, "sim") || otherModel("", d) {
			return false, "the generic server imports no network model and no game"
		}
		return true, ""
	}
}

func rules() []rule {
	return []rule{
		// An example game is written against the public API alone.
		{pkg: "examples/gridtactics", allowed: publicAPIOnly},
		{pkg: "examples/arena", allowed: publicAPIOnly},
		{pkg: "examples/paint", allowed: publicAPIOnly},
		{pkg: "examples/ctf", allowed: publicAPIOnly},
		{pkg: "wire", allowed: stdlibOnly},
		{pkg: "metrics", allowed: stdlibOnly},
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
			case d.standard, under(d.path, "sim", "protocol", "wire", "merkle"):
				return true, ""
			case strings.HasPrefix(d.path, "github.com/cespare/xxhash/"), strings.HasPrefix(d.path, "github.com/zeebo/xxh3"):
				return true, ""
			}
			return false, "sim may import only protocol, wire, merkle, the standard library and xxHash"
		}},
		// The Merkle tree shape the game builds and the relay walks.
		{pkg: "merkle", allowed: func(d dep) (bool, string) {
			if d.standard && !networking(d.path) || strings.HasPrefix(d.path, "github.com/cespare/xxhash/") {
				return true, ""
			}
			return false, "merkle may import only the standard library and xxHash"
		}},
		// NAT traversal sits beside the transport: it hands the transport a
		// socket and knows no game, model or server.
		{pkg: "rendezvous", allowed: func(d dep) (bool, string) {
			if under(d.path, append([]string{"transport", "examples"}, gamePackages...)...) {
				return false, "rendezvous imports no transport, server, network model or game"
			}
			return true, ""
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
		// The generic server knows no model.
		{pkg: "server", exact: true, allowed: genericServer()},
		{pkg: "server/room", allowed: genericServer()},
		{pkg: "server/lanes", allowed: genericServer()},
		{pkg: "server/admin", allowed: genericServer()},
		{pkg: "server/join", allowed: genericServer()},
		// No model imports another.
		{pkg: "lockstep", name: "lockstep/...", allowed: noOtherModel("lockstep")},
		{pkg: "fogauth", name: "fogauth/...", allowed: noOtherModel("fogauth")},
		{pkg: "predict", name: "predict/...", allowed: noOtherModel("predict")},
		{pkg: "statesync", name: "statesync/...", allowed: noOtherModel("statesync")},
		{pkg: "examples/echo", name: "examples/echo/...", allowed: noOtherModel("examples/echo")},
		// RelayCore is a pure state machine: sockets live in the server.
		{pkg: "lockstep/relay", exact: true, allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "RelayCore is pure: no networking code"
			case d.standard, under(d.path, "protocol", "wire", "metrics", "lockstep/msg", "merkle"),
				strings.HasPrefix(d.path, "github.com/cespare/xxhash/"):
				return true, ""
			}
			return false, "RelayCore may import only protocol, wire, metrics, lockstep/msg, merkle (with xxHash) and the standard library"
		}},
		// The lockstep client does not link the server: what both need
		// (the lane table) lives below both, in server/lanes. A listen
		// server imports lockstep/hostrelay.
		{pkg: "lockstep", exact: true, allowed: func(d dep) (bool, string) {
			if d.path == module+"/server" {
				return false, "the lockstep client does not link the server"
			}
			return true, ""
		}},
		// The fog-authoritative room and client cores are pure: no
		// sockets, no transport; the simulation only through its public
		// API.
		{pkg: "fogauth", exact: true, allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "the fog-authoritative core is pure: no networking code"
			case d.standard, under(d.path, "protocol", "wire", "metrics"):
				return true, ""
			case strings.HasPrefix(d.path, "github.com/cespare/xxhash/"):
				return true, ""
			}
			return false, "the fog-authoritative core may import only protocol, wire, metrics, xxHash and the standard library: a game plugs in through fogauth.Game"
		}},
		// The reference RTS's adapter to the fog mode is simulation code,
		// and imports no fogauth package: fogauth's own tests run against it.
		{pkg: "fogauth/rtsgame", allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "a game adapter never imports networking code"
			case under(d.path, "fogauth"):
				return false, "the RTS adapter implements fogauth.Game without importing fogauth, so fogauth's tests can use it"
			case d.standard, under(d.path, "sim", "protocol", "wire", "merkle"), strings.HasPrefix(d.path, "github.com/cespare/xxhash/"), strings.HasPrefix(d.path, "github.com/zeebo/xxh3"):
				return true, ""
			}
			return false, "a game adapter may import only sim, protocol, wire, xxHash and the standard library"
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
			case under(d.path, "transport", "netsim", "secure", "server"):
				return false, "the game adapter imports no network layer"
			}
			return true, ""
		}},
		// The state-sync room shell plugs into the seam and knows no game.
		{pkg: "statesync/host", allowed: func(d dep) (bool, string) {
			if under(d.path, "sim") {
				return false, "the state-sync shell knows no game"
			}
			return true, ""
		}},
		// The prediction core is pure and game-agnostic: the game plugs in
		// through predict.Game, sockets live in predict/netlayer.
		{pkg: "predict", exact: true, allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "the prediction core is pure: no networking code"
			case d.standard, under(d.path, "wire", "protocol", "metrics"):
				return true, ""
			}
			return false, "the prediction core may import only wire, protocol, metrics and the standard library"
		}},
		// A prediction room plugs into the server through the seam and
		// knows no game.
		{pkg: "predict/predictserver", allowed: func(d dep) (bool, string) {
			if under(d.path, "sim") {
				return false, "a prediction room knows no game"
			}
			return true, ""
		}},
		// The game adapter is simulation code: no networking either.
		{pkg: "predict/actiongame", exact: true, allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "a game adapter never imports networking code"
			case d.standard, d.path == module+"/predict", under(d.path, "sim", "protocol", "wire", "metrics", "merkle"),
				strings.HasPrefix(d.path, "github.com/cespare/xxhash/"):
				return true, ""
			}
			return false, "a game adapter may import only predict, sim, protocol, wire, metrics, xxHash and the standard library"
		}},
		// The example model's core is pure, as every model's is: no
		// sockets, no transport, no server.
		{pkg: "examples/echo", exact: true, allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "the echo core is pure: no networking code"
			case d.standard, under(d.path, "protocol", "wire"):
				return true, ""
			}
			return false, "the echo core may import only protocol, wire and the standard library"
		}},
		// The replay file is shared by every model: it knows none of
		// them, and no socket.
		{pkg: "replay", exact: true, allowed: func(d dep) (bool, string) {
			switch {
			case d.standard && networking(d.path):
				return false, "the replay file format is pure: no networking code"
			case d.standard, under(d.path, "protocol", "wire"):
				return true, ""
			}
			return false, "the replay package may import only protocol, wire and the standard library"
		}},
	}
}

// referenceGames are tickwire's own games: the reference RTS (sim and
// its subpackages) and the action game's adapters to the models. A game
// adapter may import them; nothing else of a model may.
var referenceGames = []string{"sim", "predict/actiongame", "statesync/actiongame", "fogauth/rtsgame"}

// gameAdapters are the packages that plug a reference game into a
// model.
var gameAdapters = []string{"predict/actiongame", "statesync/actiongame", "fogauth/rtsgame"}

// referenceBotsPending are the models' bot runners (moved out of
// cmd/tickwire), which still play the reference games themselves; like
// fogclient's RunBots they should take the game's bot from their caller.
var referenceBotsPending = []string{"lockstep/lockstepbot", "predict/predictbot", "statesync/syncclient"}

// noReferenceGame is the rule of every model package but the game
// adapters: a game plugs into the model through its interface, so the
// model imports no reference game.
func noReferenceGame(d dep) (bool, string) {
	if under(d.path, referenceGames...) {
		return false, "a network model imports no reference game: the game plugs in through the model's interface"
	}
	return true, ""
}

// publicAPIOnly is the rule of the example games: each writes its own
// game against tickwire's models, so nothing it links is a reference game.
// (Dependencies are transitive: a model's client may link internal
// helpers, so internal packages are not checked here; Go's internal rule
// keeps them out of code outside the module.)
func publicAPIOnly(d dep) (bool, string) {
	if ok, _ := noReferenceGame(d); !ok {
		return false, "an example brings its own game: no reference game"
	}
	return true, ""
}

// modelPackages lists every package of the network models' trees.
func modelPackages(t *testing.T, root string) []string {
	t.Helper()
	var pkgs []string
	for _, m := range models {
		for _, d := range listPackages(t, root, "./"+m+"/...") {
			pkgs = append(pkgs, strings.TrimPrefix(d, module+"/"))
		}
	}
	return pkgs
}

// listPackages runs go list on pattern.
func listPackages(t *testing.T, root, pattern string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", pattern)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	return strings.Fields(string(out))
}

// TestModelsImportNoReferenceGame: every package of every model but the
// game adapters imports no reference game.
func TestModelsImportNoReferenceGame(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is needed to list dependencies")
	}
	root := moduleRoot(t)
	for _, pkg := range modelPackages(t, root) {
		if slices.Contains(gameAdapters, pkg) || slices.Contains(referenceBotsPending, pkg) {
			continue
		}
		r := rule{pkg: pkg, exact: true, allowed: noReferenceGame}
		for _, v := range violations(r, listDeps(t, root, "./"+pkg)) {
			t.Errorf("%s depends on %s", pkg, v)
		}
	}
	for _, pkg := range append(slices.Clone(gameAdapters), referenceBotsPending...) {
		if err := packageExists(root, pkg); err != nil {
			t.Error(err)
		}
	}
}

// TestReferenceGameRuleCatches proves noReferenceGame and publicAPIOnly
// refuse what they forbid and let the rest through.
func TestReferenceGameRuleCatches(t *testing.T) {
	for _, d := range []dep{{path: module + "/sim"}, {path: module + "/sim/bot"}, {path: module + "/sim/action"},
		{path: module + "/predict/actiongame"}, {path: module + "/statesync/actiongame"}, {path: module + "/fogauth/rtsgame"}} {
		if ok, _ := noReferenceGame(d); ok {
			t.Errorf("a model may import %s", d.path)
		}
		if ok, _ := publicAPIOnly(d); ok {
			t.Errorf("an example may import %s", d.path)
		}
	}
	for _, d := range []dep{{path: module + "/predict"}, {path: module + "/protocol"}, {path: module + "/server"},
		{path: module + "/simulation"}, {path: "fmt", standard: true}} {
		if ok, why := noReferenceGame(d); !ok {
			t.Errorf("a model may not import %s: %s", d.path, why)
		}
		if ok, why := publicAPIOnly(d); !ok {
			t.Errorf("an example may not import %s: %s", d.path, why)
		}
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
		"rendezvous":            {{path: module + "/transport"}, {path: module + "/server"}, {path: module + "/lockstep"}, {path: module + "/sim"}},
		"sim":                   {{path: module + "/transport"}, {path: module + "/netsim"}, {path: "net", standard: true}, {path: "github.com/some/lib"}},
		"transport":             {{path: module + "/protocol"}, {path: module + "/sim"}, {path: module + "/lockstep/relay"}, {path: module + "/server/lanes"}},
		"server":                {{path: module + "/lockstep"}, {path: module + "/lockstep/msg"}, {path: module + "/lockstep/relay"}, {path: module + "/fogauth"}, {path: module + "/predict/netlayer"}, {path: module + "/statesync/msg"}, {path: module + "/sim"}},
		"server/room":           {{path: module + "/lockstep/relay"}, {path: module + "/lockstep/msg"}, {path: module + "/fogauth"}, {path: module + "/sim/action"}},
		"server/lanes":          {{path: module + "/lockstep/msg"}, {path: module + "/statesync"}},
		"server/admin":          {{path: module + "/lockstep/relay"}, {path: module + "/predict"}},
		"server/join":           {{path: module + "/lockstep"}, {path: module + "/lockstep/msg"}, {path: module + "/fogauth/fogclient"}, {path: module + "/predict/netlayer"}, {path: module + "/statesync"}, {path: module + "/sim"}},
		"lockstep/...":          {{path: module + "/fogauth"}, {path: module + "/predict/netlayer"}, {path: module + "/statesync/msg"}},
		"lockstep":              {{path: module + "/server"}},
		"fogauth/...":           {{path: module + "/lockstep"}, {path: module + "/lockstep/msg"}, {path: module + "/lockstep/relay"}, {path: module + "/lockstep/hostrelay"}, {path: module + "/predict"}, {path: module + "/statesync/host"}},
		"fogauth":               {{path: module + "/transport"}, {path: module + "/netsim"}, {path: module + "/server/room"}, {path: "net", standard: true}, {path: module + "/sim"}},
		"fogauth/rtsgame":       {{path: module + "/fogauth"}, {path: module + "/fogauth/fogclient"}, {path: module + "/transport"}, {path: "net", standard: true}},
		"predict/...":           {{path: module + "/lockstep/msg"}, {path: module + "/lockstep/relay"}, {path: module + "/statesync"}, {path: module + "/fogauth/fogclient"}},
		"statesync/...":         {{path: module + "/lockstep"}, {path: module + "/lockstep/msg"}, {path: module + "/predict/lanes"}, {path: module + "/fogauth"}},
		"examples/echo/...":     {{path: module + "/lockstep/msg"}, {path: module + "/lockstep/relay"}, {path: module + "/fogauth/fogclient"}, {path: module + "/statesync"}},
		"examples/echo":         {{path: module + "/transport"}, {path: module + "/server/room"}, {path: "net", standard: true}},
		"lockstep/relay":        {{path: module + "/transport"}, {path: module + "/server"}, {path: "net", standard: true}, {path: "github.com/some/lib"}, {path: module + "/sim"}},
		"merkle":                {{path: module + "/protocol"}, {path: module + "/sim"}, {path: "net", standard: true}, {path: "github.com/some/lib"}},
		"predict/predictserver": {{path: module + "/sim/action"}, {path: module + "/sim"}},
		"predict/actiongame":    {{path: module + "/transport"}, {path: module + "/predict/netlayer"}, {path: "net/netip", standard: true}},
		"statesync/msg":         {{path: module + "/protocol"}, {path: "net", standard: true}},
		"statesync/actiongame":  {{path: module + "/transport"}, {path: module + "/server/lanes"}, {path: "net", standard: true}},
		"statesync/host":        {{path: module + "/sim/action"}},
		"cmd/tickwire":          {{path: "testing", standard: true}, {path: "testing/synctest", standard: true}},
		"replay":                {{path: module + "/lockstep/relay"}, {path: module + "/transport"}, {path: "net", standard: true}},
		"examples/ctf":          {{path: module + "/sim"}, {path: module + "/sim/action"}, {path: module + "/predict/actiongame"}, {path: module + "/fogauth/rtsgame"}},
	}
	allowed := map[string][]dep{
		"sim":                {{path: module + "/protocol"}, {path: module + "/wire"}, {path: "github.com/cespare/xxhash/v2"}, {path: "sort", standard: true}},
		"transport":          {{path: module + "/wire"}, {path: "github.com/klauspost/compress/zstd"}, {path: "net", standard: true}},
		"server":             {{path: module + "/transport"}, {path: module + "/server/room"}, {path: module + "/protocol"}},
		"server/room":        {{path: module + "/transport"}, {path: module + "/protocol"}, {path: module + "/server/admin"}, {path: "net", standard: true}},
		"server/lanes":       {{path: module + "/transport"}},
		"server/join":        {{path: module + "/server/lanes"}, {path: module + "/transport"}, {path: module + "/protocol"}, {path: module + "/wire"}},
		"lockstep/...":       {{path: module + "/server/lanes"}, {path: module + "/server/join"}, {path: module + "/lockstep/relay"}, {path: module + "/transport"}, {path: module + "/sim"}, {path: module + "/server"}},
		"lockstep":           {{path: module + "/server/lanes"}, {path: module + "/server/join"}, {path: module + "/lockstep/relay"}, {path: module + "/transport"}},
		"fogauth/...":        {{path: module + "/server/room"}, {path: module + "/server/join"}, {path: module + "/sim"}, {path: module + "/fogauth/fogserver"}},
		"predict/...":        {{path: module + "/server/join"}, {path: module + "/server/room"}, {path: module + "/predict/lanes"}},
		"statesync/...":      {{path: module + "/server/join"}, {path: module + "/server/room"}, {path: module + "/statesync/msg"}},
		"fogauth":            {{path: module + "/protocol"}, {path: "github.com/cespare/xxhash/v2"}, {path: "encoding/binary", standard: true}},
		"fogauth/rtsgame":    {{path: module + "/sim"}, {path: module + "/sim/bot"}, {path: module + "/protocol"}},
		"lockstep/relay":     {{path: module + "/protocol"}, {path: module + "/lockstep/msg"}, {path: "crypto/sha256", standard: true}},
		"predict":            {{path: module + "/wire"}, {path: "time", standard: true}},
		"predict/actiongame": {{path: module + "/predict"}, {path: module + "/sim/action"}, {path: module + "/sim"}},
		"statesync":          {{path: module + "/statesync/msg"}, {path: "github.com/klauspost/compress/zstd"}, {path: "github.com/OneOfOne/xxhash"}},
		"cmd/tickwire":       {{path: module + "/server"}, {path: "net", standard: true}, {path: "github.com/prometheus/client_golang/prometheus"}},
		"examples/ctf":       {{path: module + "/fogauth"}, {path: module + "/fogauth/fogclient"}, {path: module + "/fogauth/fogserver"}, {path: module + "/server"}},
	}
	for _, r := range rules() {
		key := r.pkg
		if r.name != "" {
			key = r.name
		}
		for _, d := range forbidden[key] {
			if len(violations(r, []dep{d})) == 0 {
				t.Errorf("rule for %s lets it import %s", r.pkg, d.path)
			}
		}
		if bad := violations(r, allowed[key]); len(bad) > 0 {
			t.Errorf("rule for %s rejects allowed imports: %v", r.pkg, bad)
		}
	}
	if !slices.Contains(gamePackages, "protocol") {
		t.Error("protocol must count as a game package")
	}
}

// TestNoModelImportsAnother sweeps every ordered pair of network models:
// the rule of each model's tree rejects the other model's root and its
// client, server and message packages, and accepts the shared join
// package every model's client uses.
func TestNoModelImportsAnother(t *testing.T) {
	byName := map[string]rule{}
	for _, r := range rules() {
		byName[r.name] = r
	}
	for _, self := range models {
		r, ok := byName[self+"/..."]
		if !ok {
			t.Fatalf("no rule for %s/...", self)
		}
		if bad := violations(r, []dep{{path: module + "/server/join"}, {path: module + "/server/room"}}); len(bad) > 0 {
			t.Errorf("%s may not import the shared server packages: %v", self, bad)
		}
		for _, other := range models {
			if other == self {
				continue
			}
			for _, sub := range []string{"", "/msg", "/relay", "/fogclient", "/fogserver", "/netlayer", "/predictserver", "/host"} {
				d := dep{path: module + "/" + other + sub}
				if len(violations(r, []dep{d})) == 0 {
					t.Errorf("%s may import %s", self, d.path)
				}
			}
		}
	}
}
