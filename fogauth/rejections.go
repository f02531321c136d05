package fogauth

import "github.com/tickwire/tickwire/protocol"

// maxRejectionGroups is how many (reason, kind) groups of one tick's
// refused orders a client is told of one by one; the rest of the tick's
// refusals are counted in one RejectMany Rejection. A client therefore
// receives at most maxRejectionGroups+1 Rejections per tick, 13 bytes
// each, whatever it sends.
const maxRejectionGroups = 3

// rejections gathers one client's refused orders of one tick.
type rejections struct {
	groups [maxRejectionGroups]Rejection
	n      int
	others uint32
}

// add counts one refused order.
func (g *rejections) add(reason RejectReason, kind protocol.OrderKind) {
	for i := range g.groups[:g.n] {
		if r := &g.groups[i]; r.Reason == reason && r.Kind == kind {
			r.Count = min(r.Count+1, maxCount)
			return
		}
	}
	if g.n < len(g.groups) {
		g.groups[g.n] = Rejection{Reason: reason, Kind: kind, Count: 1}
		g.n++
		return
	}
	g.others++
}

const maxCount = 1<<16 - 1

// flushRejections sends each client the Rejections of the orders refused
// since the last flush, stamped with tick.
func (r *Room) flushRejections(tick uint64) {
	for _, c := range r.clients {
		g := &c.rejected
		for _, rej := range g.groups[:g.n] {
			rej.Tick = tick
			r.reject(c, rej)
		}
		if g.others > 0 {
			r.reject(c, Rejection{Tick: tick, Reason: RejectMany, Count: uint16(min(g.others, maxCount))})
		}
		*g = rejections{}
	}
}

func (r *Room) reject(c *viewer, rej Rejection) {
	start := len(r.arena)
	r.arena = AppendRejection(r.arena, rej)
	r.out = append(r.out, envelopeRec{to: c.id, reliable: true, start: start, end: len(r.arena)})
	r.stats.Rejections += uint64(rej.Count)
}
