package fogauth

import (
	"time"

	"github.com/tickwire/tickwire/fogauth/rtsgame"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
)

// The tests run the mode against the reference RTS through its adapter,
// as fogserver runs it.

// newRTSRoom starts a room hosting the reference RTS on the map and
// rules, with the simulation seed.
func newRTSRoom(cfg Config, md sim.MapData, rules sim.Config, seed uint64, now time.Duration) (*Room, error) {
	g, err := rtsgame.New(md, rules, seed)
	if err != nil {
		return nil, err
	}
	return New(cfg, g, now)
}

// rtsOf is the simulation of a room hosting the reference RTS.
func rtsOf(r *Room) *sim.Sim { return r.Game().(*rtsgame.Game).Sim() }

// botWorld is a client's partial world as the RTS's bot reads it.
func botWorld(r *Room, w *PartialWorld) bot.World {
	return rtsgame.World{Partial: w, At: w.Tick(), Map: rtsOf(r).Terrain()}
}

// observeProbe hands a Rejection to the RTS's prober.
func observeProbe(p *rtsgame.Prober, r Rejection) {
	p.Observe(rtsgame.Rejection{Tick: r.Tick, Reason: uint8(r.Reason), Many: r.Reason == RejectMany, Kind: r.Kind, Count: r.Count})
}

// reasonName names a rejection reason, the RTS's by their sim names.
func reasonName(r RejectReason) string {
	if r < RejectRate {
		return sim.OrderValidity(r).String()
	}
	return r.String()
}
