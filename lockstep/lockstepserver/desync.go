package lockstepserver

import (
	"path/filepath"

	"github.com/tickwire/tickwire/internal/atomicfile"
	"github.com/tickwire/tickwire/lockstep/relay"
	"github.com/tickwire/tickwire/server/room"
)

// DesyncReportDoc is the name of a room's last desync report among its
// dashboard documents (room.Report.Documents): the dashboard serves it at
// /api/v1/rooms/{room}/desync_report.
const DesyncReportDoc = "desync_report"

// diagnosed keeps the walk's report for the dashboard and writes it to
// the desync directory, if one is set.
func (r *lockstepRoom) diagnosed(e relay.DesyncDiagnosed) {
	r.rep.desyncReport = e.JSON
	r.rep.events.Push(room.Event{Tick: e.Report.Tick, Kind: "desync", Detail: "desync report: " + e.Report.FileName()})
	args := []any{"tick", e.Report.Tick, "minority", e.Report.Minority, "round_trips", e.Report.Cost.RoundTrips, "bytes", e.Report.Cost.Bytes}
	if dir := r.l.cfg.DesyncDir; dir != "" {
		path := filepath.Join(dir, e.Report.FileName())
		if err := atomicfile.Write(path, e.JSON, 0o644); err != nil {
			r.log.Error("relay: writing the desync report", "path", path, "err", err)
			return
		}
		args = append(args, "path", path)
	}
	r.log.Warn("relay: desync localised", args...)
}
