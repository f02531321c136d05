package main

import (
	"github.com/tickwire/tickwire/fogauth"
	"github.com/tickwire/tickwire/fogauth/fogclient"
	"github.com/tickwire/tickwire/fogauth/rtsgame"
	"github.com/tickwire/tickwire/sim"
	"github.com/tickwire/tickwire/sim/bot"
)

// rtsFog is the reference RTS as the fog-authoritative rooms' game.
func rtsFog(players, units int, mapSeed, simSeed uint64) (fogauth.Game, int, error) {
	return rtsgame.Start(players, units, mapSeed, simSeed)
}

// rtsMap is the map of the match c joined, built as the server built it.
func rtsMap(c *fogclient.Client) (*sim.Terrain, error) {
	m := c.Match()
	return rtsgame.Terrain(int(m.Players), int(m.UnitsPerPlayer), int(m.MapSize), m.MapSeed)
}

// rtsBot is a fog bot's mind: the RTS's bot on the match's map.
func rtsBot(c *fogclient.Client) (fogclient.Mind, error) {
	t, err := rtsMap(c)
	if err != nil {
		return nil, err
	}
	return rtsgame.Bot{Bot: bot.New(c.Player(), uint64(c.Player())*7919), Map: t}, nil
}

// rtsProber is a --cheat bot's mind: the RTS's prober.
func rtsProber(c *fogclient.Client) (fogclient.Prober, error) {
	t, err := rtsMap(c)
	if err != nil {
		return nil, err
	}
	return prober{rtsgame.NewProber(c.Player(), t, uint64(c.Player())*7919)}, nil
}

// prober is the RTS's cheating mind, reading the server's Rejections.
type prober struct{ *rtsgame.Prober }

func (p prober) Observe(r fogauth.Rejection) {
	p.Prober.Observe(rtsgame.Rejection{Tick: r.Tick, Reason: uint8(r.Reason), Many: r.Reason == fogauth.RejectMany, Kind: r.Kind, Count: r.Count})
}
