package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/tickwire/tickwire/lockstep/lockstepbot"
	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/lockstep/relay"
)

// desyncFlags are the desync debugging options of lockstep's bot and
// demo: the debug level, the directory for logs, snapshots and reports,
// and a fault to inject.
type desyncFlags struct {
	debugLevel uint
	dir        string
	injectAt   uint64 // bot: --inject-desync-at (0: none)
	inject     bool   // demo: --inject-desync
}

// addBot adds bot's flags: --debug-level, --desync-dir, --inject-desync-at.
func (f *desyncFlags) addBot(fs *flag.FlagSet) {
	f.addCommon(fs, "the bots' desync debug level (the room's, if higher, wins): 1 order log, 2 + cache validation, 3 + snapshots every 300 ticks")
	fs.Uint64Var(&f.injectAt, "inject-desync-at", 0, "desync drill: the first bot of this process corrupts one field of one entity after tick N (its first structure's health)")
}

// addDemo adds demo's flags: --debug-level, --desync-dir, --inject-desync.
func (f *desyncFlags) addDemo(fs *flag.FlagSet) {
	f.addCommon(fs, "the room's desync debug level: 1 order log, 2 + cache validation, 3 + snapshots every 300 ticks")
	fs.BoolVar(&f.inject, "inject-desync", false, "desync drill: one bot corrupts its state mid-match; the relay's report goes to --desync-dir and must name the entity and field")
}

func (f *desyncFlags) addCommon(fs *flag.FlagSet, level string) {
	fs.UintVar(&f.debugLevel, "debug-level", 0, level)
	fs.StringVar(&f.dir, "desync-dir", ".", "directory of desync reports, and of order logs and snapshots (player-ID/)")
}

func (f *desyncFlags) check() error {
	if f.debugLevel > msg.MaxDebugLevel {
		return fmt.Errorf("%w: --debug-level must be 0..%d", errUsage, msg.MaxDebugLevel)
	}
	return nil
}

// demoInjectTick is when the demo's drill corrupts a bot: a sync tick
// near the middle of the match, so the walk ends well before it does.
func demoInjectTick(ticks uint64) uint64 { return max(30, ticks/2/30*30) }

// config is lockstepbot's desync configuration; reportDir receives the
// reports the bots get ("" when the relay in the same process writes
// them).
func (f *desyncFlags) config(ticks uint64, reportDir string) lockstepbot.DesyncConfig {
	c := lockstepbot.DesyncConfig{DebugLevel: uint8(f.debugLevel), DebugDir: f.dir, ReportDir: reportDir}
	switch {
	case f.injectAt > 0:
		c.Faults = []lockstepbot.Fault{{At: f.injectAt}}
	case f.inject:
		c.Faults = []lockstepbot.Fault{{At: demoInjectTick(ticks)}}
	}
	return c
}

// errDrillFailed: the demo's desync drill did not produce a report naming
// the injected fault.
var errDrillFailed = errors.New("the desync drill's report does not name the injected fault")

// checkDrill reads the report the drill should have produced and checks
// that it names the injected entity and field; it returns the report's
// path.
func checkDrill(r *lockstepbot.Report, dir string) (string, error) {
	i := slices.IndexFunc(r.Players, func(p lockstepbot.PlayerReport) bool { return p.InjectedDesync != nil })
	if i < 0 || r.Players[i].DesyncReport == "" {
		return "", fmt.Errorf("%w: no report received", errDrillFailed)
	}
	p := r.Players[i]
	path := filepath.Join(dir, p.DesyncReport)
	b, err := os.ReadFile(path)
	if err != nil {
		return path, fmt.Errorf("%w: %v", errDrillFailed, err)
	}
	var rep relay.DesyncReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return path, fmt.Errorf("%w: %s: %v", errDrillFailed, path, err)
	}
	for _, d := range rep.Divergences {
		for _, l := range d.Leaves {
			for _, fd := range l.Differences {
				if int(d.Player) == p.ID && fd.Entity == uint32(p.InjectedDesync.Entity) && fd.Field == p.InjectedDesync.Field {
					return path, nil
				}
			}
		}
	}
	return path, fmt.Errorf("%w: %s does not name entity %d field %s", errDrillFailed, path, p.InjectedDesync.Entity, p.InjectedDesync.Field)
}
