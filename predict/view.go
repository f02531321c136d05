package predict

import "time"

// interpFrame is the authoritative view of other players' entities at a
// tick.
type interpFrame struct {
	tick  uint64
	views []EntityView
}

// interpBuffer keeps the last frames of remote entities for drawing them
// a little in the past, between two known states.
type interpBuffer struct {
	frames [32]interpFrame
	n      int // frames pushed
}

// push records the remote entities of the game's current (authoritative)
// state at tick t.
func (b *interpBuffer) push(t uint64, g Game, self PlayerID) {
	f := &b.frames[b.n%len(b.frames)]
	f.tick = t
	all := g.Entities(f.views[:0])
	f.views = all[:0]
	for _, v := range all {
		if v.Owner != self {
			f.views = append(f.views, v)
		}
	}
	b.n++
}

// at returns the remote entities at fractional tick t: interpolated
// between the frames around t, or extrapolated from the newest by its
// velocities (at most maxTicks) when t is beyond it.
func (b *interpBuffer) at(t float64, maxTicks float64, dst []EntityView) ([]EntityView, bool) {
	if b.n == 0 {
		return dst, false
	}
	newest := &b.frames[(b.n-1)%len(b.frames)]
	if t >= float64(newest.tick) {
		dt := min(t-float64(newest.tick), maxTicks)
		for _, v := range newest.views {
			for k := range 3 {
				v.Pos[k] += v.Vel[k] * dt
			}
			dst = append(dst, v)
		}
		return dst, t > float64(newest.tick)
	}
	// The newest frame at or before t, and the one after it.
	for i := 1; i < min(b.n, len(b.frames)); i++ {
		a := &b.frames[(b.n-1-i)%len(b.frames)]
		if float64(a.tick) > t {
			continue
		}
		z := &b.frames[(b.n-i)%len(b.frames)]
		alpha := (t - float64(a.tick)) / float64(z.tick-a.tick)
		return lerpFrames(a, z, alpha, dst), false
	}
	oldest := &b.frames[(b.n-min(b.n, len(b.frames)))%len(b.frames)]
	return append(dst, oldest.views...), false
}

// lerpFrames interpolates entities present in both frames; an entity in
// only one of them is drawn as that frame has it.
func lerpFrames(a, z *interpFrame, alpha float64, dst []EntityView) []EntityView {
	j := 0
	for _, v := range a.views {
		for j < len(z.views) && z.views[j].ID < v.ID {
			j++
		}
		if j < len(z.views) && z.views[j].ID == v.ID {
			w := z.views[j]
			for k := range 3 {
				v.Pos[k] += (w.Pos[k] - v.Pos[k]) * alpha
				v.Vel[k] = w.Vel[k]
			}
		}
		dst = append(dst, v)
	}
	return dst
}

// smoothing is the visual offset of the client's own entity after a
// correction: the view starts where the player saw it and blends to the
// corrected prediction over CorrectionSmoothing. Velocity is never
// smoothed: the prediction's is authoritative.
type smoothing struct {
	id     EntityID
	offset [3]float64
	at     time.Duration
	dur    time.Duration
}

func (s *smoothing) current(now time.Duration) [3]float64 {
	if s.dur <= 0 || now >= s.at+s.dur {
		return [3]float64{}
	}
	f := 1 - float64(now-s.at)/float64(s.dur)
	return [3]float64{s.offset[0] * f, s.offset[1] * f, s.offset[2] * f}
}

// add starts a blend of d more error, on top of what is still showing.
func (s *smoothing) add(id EntityID, now time.Duration, d [3]float64) {
	cur := s.current(now)
	if s.id != id {
		cur = [3]float64{}
	}
	s.id, s.at = id, now
	for k := range 3 {
		s.offset[k] = cur[k] + d[k]
	}
}

func (s *smoothing) snap(id EntityID) { *s = smoothing{id: id, dur: s.dur} }

func (s *smoothing) rename(from, to EntityID) {
	if s.id == from {
		s.id = to
	}
}

// InterpolationDelay is how far in the past remote entities are drawn:
// clamp(RTT, MinInterp, MaxInterp).
func (c *Client) InterpolationDelay() time.Duration {
	return min(max(c.clock.rtt, c.cfg.MinInterp), c.cfg.MaxInterp)
}

// View appends what to draw at now: the player's own entities (its avatar
// and its projectiles, provisional ones included) from the prediction,
// the avatar offset by the correction blend; every other entity from the
// interpolation buffer, InterpolationDelay in the past, extrapolated when
// snapshots are missing.
func (c *Client) View(now time.Duration, dst []EntityView) []EntityView {
	if !c.Predicting() {
		return dst
	}
	c.scratch.views = c.game.Entities(c.scratch.views[:0])
	off := c.smooth.current(now)
	for _, v := range c.scratch.views {
		if v.Owner != c.player {
			continue
		}
		if v.ID == c.smooth.id {
			for k := range 3 {
				v.Pos[k] += off[k]
			}
		}
		dst = append(dst, v)
	}
	t := c.clock.serverTick(now) - float64(c.InterpolationDelay())/float64(c.interval)
	var extrapolated bool
	dst, extrapolated = c.interp.at(t, float64(c.cfg.MaxExtrapolate)/float64(c.interval), dst)
	if extrapolated {
		c.stats.Extrapolated++
	}
	return dst
}

// AnchorView appends every entity as the newest snapshot reconciled
// placed it: the server's authoritative state at AnchorTick, which a
// renderer may draw as ghosts beside the predicted and interpolated view.
func (c *Client) AnchorView(dst []EntityView) []EntityView {
	return append(dst, c.anchorViews...)
}
