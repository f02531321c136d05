package relay

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"slices"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
)

// Errors of reconnection. Test with errors.Is.
var (
	ErrNotAway  = errors.New("relay: player is not waiting to rejoin")
	ErrTransfer = errors.New("relay: message belongs to no snapshot transfer")
)

// Defaults of RejoinConfig.
const (
	DefaultRejoinTimeout = 60 * time.Second
	DefaultMaxRejoins    = 3
	DefaultMaxDonors     = 3
	DefaultDonorTimeout  = 10 * time.Second
	// rejoinKeepalive is the period of RejoinKeepalive during a download.
	rejoinKeepalive = time.Second
)

// RejoinConfig bounds reconnection by snapshot donor. Zero fields take
// the defaults in brackets.
type RejoinConfig struct {
	// Enabled makes a player that goes silent past the heartbeat timeout
	// away, as Disconnected does, instead of removing it: set it when the
	// embedder takes rejoins.
	Enabled bool
	// Timeout removes a disconnected player not active again within it
	// [60 s], counted from its disconnection.
	Timeout time.Duration
	// MaxRejoins is how many times a player may come back over a match
	// [3]: its next disconnection removes it, so nobody can cycle
	// disconnections to disrupt the game.
	MaxRejoins int
	// MaxDonors is how many donors one transfer tries before it is
	// aborted [3].
	MaxDonors int
	// DonorTimeout moves a transfer to the next donor when the snapshot
	// is not fully relayed this long after its tick was broadcast [10 s].
	DonorTimeout time.Duration
}

func (r RejoinConfig) withDefaults() RejoinConfig {
	r.Timeout = orDefault(r.Timeout, DefaultRejoinTimeout)
	r.MaxRejoins = orDefault(r.MaxRejoins, DefaultMaxRejoins)
	r.MaxDonors = orDefault(r.MaxDonors, DefaultMaxDonors)
	r.DonorTimeout = orDefault(r.DonorTimeout, DefaultDonorTimeout)
	return r
}

// transfer is one snapshot transfer: to a rejoining player or to an
// observer, from one donor at a time.
type transfer struct {
	to       protocol.PlayerID // the recipient (a player, or an observer's id)
	observer bool
	delay    uint32 // an observer's feed delay
	attempt  int    // donors asked so far
	tried    []protocol.PlayerID
	donor    protocol.PlayerID
	tick     uint64 // the snapshot's tick
	since    time.Duration
	chunks   int // relayed of this attempt
	total    int
	bytes    int
	hashes   []PlayerHash // reported for tick by active players
	hashSent bool
	// witnesses are the active players, neither the donor nor the
	// recipient, asked for the digest of their own snapshot of tick;
	// digests what they reported, once each, and the donor's own vote:
	// the SHA-256 of the bytes it sent, which the relay hashes as it
	// relays them (sum), so a donor can vote only for what it sent.
	witnesses  []protocol.PlayerID
	digests    []playerDigest
	sum        hash.Hash
	digestSent bool
	digest     [msg.DigestSize]byte // the agreed one, once digestSent
	digestOut  bool                 // sent to the recipient
	loaded     bool                 // the recipient verified and loaded the snapshot
	alive      time.Duration
}

type playerDigest struct {
	player protocol.PlayerID
	digest [msg.DigestSize]byte
}

// rejoinState is the core's reconnection bookkeeping.
type rejoinState struct {
	transfers []*transfer
}

// Disconnected tells the core that an active player's connection ended
// and that it may come back (the embedder takes rejoins): the player is
// away, its slot plays Idle, nobody waits for it, and it is removed if it
// is not active again within RejoinConfig.Timeout. A player that used its
// MaxRejoins is removed at once, as by Leave. A player rejoining (its
// transfer under way) that disconnects again is away again, with the
// deadline of its first disconnection.
func (c *Core) Disconnected(now time.Duration, id protocol.PlayerID) {
	c.advance(now)
	p := c.player(id)
	if p == nil {
		return
	}
	switch {
	case c.phase != PhasePlaying:
		c.scheduleRemoval(p, msg.ReasonLeft)
	case p.state.Status == StatusRejoining:
		p.state.Status = StatusAway
		c.endTransfer(c.transferTo(id))
		c.emit(PlayerAway{Player: id, Until: p.awayUntil})
	case p.state.Status == StatusActive:
		c.goAway(p, msg.ReasonLeft)
	}
}

// lost handles an active player the relay no longer hears from (silent)
// or whose frames no longer get through (frozen): away when rejoins are
// enabled, else removed for reason.
func (c *Core) lost(p *player, reason msg.RemovalReason) {
	if c.cfg.Rejoin.Enabled {
		c.goAway(p, reason)
		return
	}
	c.scheduleRemoval(p, reason)
}

// goAway makes an active player away, or removes it for reason if it
// has used its MaxRejoins.
func (c *Core) goAway(p *player, reason msg.RemovalReason) {
	if p.state.Rejoins >= c.cfg.Rejoin.MaxRejoins {
		c.scheduleRemoval(p, reason)
		return
	}
	p.state.Status = StatusAway
	p.awayUntil = c.now + c.cfg.Rejoin.Timeout
	c.emit(PlayerAway{Player: p.state.ID, Until: p.awayUntil})
	c.sync.recheck(c)
	c.retargetDonors(p.state.ID)
}

// Rejoin starts the reconnection of an away player whose new connection
// the embedder authenticated (a rejoin secret, a player key): the core
// picks a donor, asks it for a snapshot at the next tick boundary and
// relays it; the player is active again once it reports CaughtUp.
func (c *Core) Rejoin(now time.Duration, id protocol.PlayerID) error {
	c.advance(now)
	p := c.player(id)
	if p == nil {
		return fmt.Errorf("%w: %d", ErrUnknownPlayer, id)
	}
	if p.state.Status != StatusAway {
		return fmt.Errorf("%w: %d is %v", ErrNotAway, id, p.state.Status)
	}
	p.state.Status = StatusRejoining
	p.state.Rejoins++
	p.state.LastHeard = c.now
	c.startTransfer(&transfer{to: id})
	return nil
}

// Observe starts the snapshot transfer of an observer: id must be no
// player's; delay is its feed delay in ticks, which the embedder applies
// to what the core sends it (see RejoinStart.DelayTicks).
func (c *Core) Observe(now time.Duration, id protocol.PlayerID, delay uint32) error {
	c.advance(now)
	if c.phase != PhasePlaying {
		return fmt.Errorf("%w: observer while %v", ErrPhase, c.phase)
	}
	if c.player(id) != nil || c.transferTo(id) != nil {
		return fmt.Errorf("%w: observer id %d taken", ErrConfig, id)
	}
	c.startTransfer(&transfer{to: id, observer: true, delay: delay})
	return nil
}

// StepObserver feeds one decoded message from an observer.
func (c *Core) StepObserver(now time.Duration, id protocol.PlayerID, m msg.Message) error {
	c.advance(now)
	t := c.transferTo(id)
	if t == nil || !t.observer {
		return fmt.Errorf("%w: observer %d", ErrTransfer, id)
	}
	if v, ok := m.(*msg.SnapshotVerdict); ok {
		return c.onVerdict(t, v)
	}
	return fmt.Errorf("%w: %T from an observer", ErrUnexpected, m)
}

// ObserverGone ends an observer's transfer, if any.
func (c *Core) ObserverGone(now time.Duration, id protocol.PlayerID) {
	c.advance(now)
	if t := c.transferTo(id); t != nil && t.observer {
		c.endTransfer(t)
	}
}

// Reconnecting reports whether a player is away or rejoining: it may yet
// come back, so a room whose every connection is gone waits for it.
func (c *Core) Reconnecting() bool {
	return slices.ContainsFunc(c.players, func(p *player) bool {
		return p.state.Status == StatusAway || p.state.Status == StatusRejoining
	})
}

func (c *Core) transferTo(id protocol.PlayerID) *transfer {
	for _, t := range c.rejoin.transfers {
		if t.to == id {
			return t
		}
	}
	return nil
}

func (c *Core) endTransfer(t *transfer) {
	if i := slices.Index(c.rejoin.transfers, t); i >= 0 {
		c.rejoin.transfers = slices.Delete(c.rejoin.transfers, i, i+1)
	}
}

func (c *Core) startTransfer(t *transfer) {
	c.rejoin.transfers = append(c.rejoin.transfers, t)
	c.nextDonor(t, "")
}

// nextDonor asks the best donor not tried yet for a snapshot at the next
// tick boundary (the next tick to be broadcast: the request travels on
// the donor's ordered lane ahead of that frame, and the recipient, whose
// connection is open already, receives every frame from it on). With no
// donor left, or MaxDonors tried, the transfer is aborted.
func (c *Core) nextDonor(t *transfer, why string) {
	if why != "" {
		c.emit(DonorFailed{To: t.to, Donor: t.donor, Tick: t.tick, Reason: why})
	}
	d := c.pickDonor(t)
	if d == nil || t.attempt >= c.cfg.Rejoin.MaxDonors {
		c.abortTransfer(t, "no donor left")
		return
	}
	witnesses := t.witnesses[:0]
	c.active(func(p *player) {
		if p != d && p.state.ID != t.to {
			witnesses = append(witnesses, p.state.ID)
		}
	})
	if len(witnesses) == 0 {
		// Nobody but the donor could vouch for its bytes: a 64-bit state
		// hash is no proof against a donor that forges a colliding state.
		c.abortTransfer(t, "no witness: every other player is the donor or the recipient")
		return
	}
	t.attempt++
	t.tried = append(t.tried, d.state.ID)
	t.donor, t.tick, t.since = d.state.ID, c.timeline.next, c.now
	t.chunks, t.total, t.bytes, t.hashes, t.hashSent, t.alive = 0, 0, 0, t.hashes[:0], false, c.now+rejoinKeepalive
	t.witnesses, t.digests, t.digestSent, t.digestOut = witnesses, t.digests[:0], false, false
	if t.sum == nil {
		t.sum = sha256.New()
	}
	t.sum.Reset()
	c.send(d.state.ID, &msg.SnapshotRequest{Tick: t.tick})
	for _, w := range witnesses {
		c.send(w, &msg.DigestRequest{Tick: t.tick})
	}
	c.send(t.to, &msg.RejoinStart{Seed: binary.LittleEndian.Uint64(c.seed.contribution[:8]), StartUs: durUs(c.timeline.start),
		TickIntervalUs: uint32(c.timeline.interval / time.Microsecond), DeadlineUs: uint32(c.deadline / time.Microsecond),
		RunAhead: c.runAhead, Attempt: uint8(min(t.attempt, 255)), SnapshotTick: t.tick, DelayTicks: t.delay})
	c.emit(SnapshotRequested{To: t.to, Donor: d.state.ID, Tick: t.tick, Attempt: t.attempt})
}

// pickDonor is the healthiest, nearest active player not tried yet: no
// strikes before some, a recent liveness echo before a stale one, then
// the lowest smoothed round-trip time, then the lowest id.
func (c *Core) pickDonor(t *transfer) *player {
	var best *player
	better := func(a, b *player) bool {
		if (a.state.Strikes == 0) != (b.state.Strikes == 0) {
			return a.state.Strikes == 0
		}
		if fa, fb := c.echoLag(a), c.echoLag(b); fa != fb {
			return fa < fb
		}
		if a.state.Clock.RTT.Mean != b.state.Clock.RTT.Mean {
			return a.state.Clock.RTT.Mean < b.state.Clock.RTT.Mean
		}
		return a.state.ID < b.state.ID
	}
	c.active(func(p *player) {
		if p.state.ID == t.to || slices.Contains(t.tried, p.state.ID) {
			return
		}
		if best == nil || better(p, best) {
			best = p
		}
	})
	return best
}

// echoLag is how many ticks behind the broadcast a player's last liveness
// echo is, in steps of a second's worth, so that small differences do not
// outrank latency.
func (c *Core) echoLag(p *player) uint64 {
	if !p.state.Echoed {
		return 1 << 32
	}
	return (c.timeline.next - min(p.state.LastEcho, c.timeline.next)) / uint64(c.cfg.TickRate)
}

// abortTransfer gives up a transfer for reason: a rejoining player is
// removed, an observer's embedder closes it (TransferAborted).
func (c *Core) abortTransfer(t *transfer, reason string) {
	c.endTransfer(t)
	c.emit(TransferAborted{To: t.to, Observer: t.observer, Attempts: t.attempt, Reason: reason})
	if t.observer {
		return
	}
	if p := c.player(t.to); p != nil && p.state.Status == StatusRejoining {
		c.removeAway(p, msg.ReasonTimeout)
	}
}

// retargetDonors moves every transfer whose donor is id to the next one.
func (c *Core) retargetDonors(id protocol.PlayerID) {
	for _, t := range slices.Clone(c.rejoin.transfers) {
		if t.donor == id && !t.loaded {
			c.nextDonor(t, "donor gone")
		}
	}
}

// wantsSnapshotSync reports whether tick k is a transfer's snapshot tick:
// its frame asks every player for its hash, the relay's agreed hash.
func (c *Core) wantsSnapshotSync(k uint64) bool {
	return slices.ContainsFunc(c.rejoin.transfers, func(t *transfer) bool { return !t.loaded && t.tick == k })
}

// snapshotHash collects an active player's sync hash for transfers at
// its tick. Once a strict majority of the active players agree, the
// recipient gets the agreed hash; a donor whose own hash is not the
// agreed one is not asked to finish.
func (c *Core) snapshotHash(p *player, m *msg.SyncHash) {
	for _, t := range slices.Clone(c.rejoin.transfers) {
		if t.loaded || t.tick != m.Tick || t.hashSent || p.state.Status != StatusActive {
			continue
		}
		t.hashes = append(t.hashes, PlayerHash{Player: p.state.ID, Hash: m.Hash})
		h, ok := c.majority(t.hashes)
		if !ok {
			continue
		}
		t.hashSent = true
		c.send(t.to, &msg.SnapshotHash{Tick: t.tick, Hash: h})
		if i := slices.IndexFunc(t.hashes, func(x PlayerHash) bool { return x.Player == t.donor }); i >= 0 && t.hashes[i].Hash != h {
			c.nextDonor(t, "donor hash not the agreed one")
		}
	}
}

// snapshotDigest collects a witness's digest of its snapshot of a
// transfer's tick.
func (c *Core) snapshotDigest(p *player, m *msg.SnapshotDigest) error {
	taken := false
	for _, t := range slices.Clone(c.rejoin.transfers) {
		if t.loaded || t.tick != m.Tick || !slices.Contains(t.witnesses, p.state.ID) || t.voted(p.state.ID) {
			continue
		}
		taken = true
		t.digests = append(t.digests, playerDigest{p.state.ID, m.Digest})
		c.agreeDigest(t)
	}
	if !taken {
		return fmt.Errorf("%w: digest of tick %d from %d", ErrTransfer, m.Tick, p.state.ID)
	}
	return nil
}

func (t *transfer) voted(id protocol.PlayerID) bool {
	return slices.ContainsFunc(t.digests, func(d playerDigest) bool { return d.player == id })
}

// agreeDigest sends the recipient the digest of the transfer's tick once
// one is agreed: reported by a strict majority of the voters (the
// witnesses and the donor, whose vote is the digest of the bytes it sent;
// everyone asked counts, answered or not) and by at least one witness.
// The donor cannot vouch for itself, a collision of the 64-bit state hash
// does not pass a SHA-256, and one hostile witness can neither pass a
// forged state nor, against an honest donor and honest witnesses, block
// the transfer. A donor whose bytes are not the agreed digest, or whose
// vote leaves every voter counted with no agreement, is passed over
// before its recipient even checks the bytes.
func (c *Core) agreeDigest(t *transfer) {
	voters := len(t.witnesses) + 1
	for _, d := range t.digests {
		if t.digestSent {
			break
		}
		k, witnesses := 0, 0
		for _, e := range t.digests {
			if e.digest == d.digest {
				k++
				if e.player != t.donor {
					witnesses++
				}
			}
		}
		if 2*k > voters && witnesses > 0 {
			t.digestSent, t.digest = true, d.digest
		}
	}
	switch i := slices.IndexFunc(t.digests, func(d playerDigest) bool { return d.player == t.donor }); {
	case t.digestSent && i >= 0 && t.digests[i].digest != t.digest:
		c.nextDonor(t, "donor snapshot not the agreed digest")
	case !t.digestSent && len(t.digests) == voters:
		c.nextDonor(t, "no digest agreed by a majority")
	case t.digestSent && !t.digestOut:
		t.digestOut = true
		c.send(t.to, &msg.SnapshotDigest{Tick: t.tick, Digest: t.digest})
	}
}

// majority returns the hash reported by more than half the active
// players, if any.
func (c *Core) majority(hs []PlayerHash) (uint64, bool) {
	n := 0
	c.active(func(*player) { n++ })
	for _, a := range hs {
		k := 0
		for _, b := range hs {
			if a.Hash == b.Hash {
				k++
			}
		}
		if 2*k > n {
			return a.Hash, true
		}
	}
	return 0, false
}

// onChunk relays a donor's chunk to the transfer's recipient.
func (c *Core) onChunk(p *player, m *msg.SnapshotChunk) error {
	for _, t := range c.rejoin.transfers {
		if t.donor != p.state.ID || t.tick != m.Tick || t.loaded {
			continue
		}
		if int(m.Index) != t.chunks || (t.total != 0 && int(m.Total) != t.total) {
			c.nextDonor(t, "chunk out of order")
			return fmt.Errorf("%w: chunk %d/%d", ErrTransfer, m.Index, m.Total)
		}
		t.total = int(m.Total)
		t.chunks++
		t.bytes += len(m.Data)
		c.send(t.to, m)
		t.sum.Write(m.Data)
		if t.chunks == t.total {
			var d playerDigest
			d.player = t.donor
			t.sum.Sum(d.digest[:0])
			t.digests = append(t.digests, d)
			c.agreeDigest(t)
		}
		return nil
	}
	return fmt.Errorf("%w: chunk of tick %d from %d", ErrTransfer, m.Tick, p.state.ID)
}

// onVerdict takes the recipient's check of the snapshot: loaded, or
// rejected (it did not match the agreed hash), which moves to the next
// donor.
func (c *Core) onVerdict(t *transfer, v *msg.SnapshotVerdict) error {
	if v.Tick < t.tick && !v.OK && !t.loaded {
		return nil // an abandoned attempt's, crossing the new RejoinStart
	}
	if v.Tick != t.tick || t.loaded {
		return fmt.Errorf("%w: verdict for tick %d", ErrTransfer, v.Tick)
	}
	if !v.OK {
		c.nextDonor(t, "snapshot rejected by its recipient")
		return nil
	}
	t.loaded = true
	c.emit(SnapshotLoaded{To: t.to, Donor: t.donor, Tick: t.tick, Chunks: t.chunks, Bytes: t.bytes, After: c.now - t.since})
	if t.observer {
		c.endTransfer(t)
	}
	return nil
}

// onCaughtUp makes a rejoining player active again: from the next tick
// its orders count, and sync checks run at the high frequency for a
// minute.
func (c *Core) onCaughtUp(p *player, m *msg.CaughtUp) error {
	t := c.transferTo(p.state.ID)
	if t == nil || !t.loaded {
		return fmt.Errorf("%w: CaughtUp before the snapshot was loaded", ErrTransfer)
	}
	c.endTransfer(t)
	p.state.Status = StatusActive
	// Liveness counts from now: as if it had echoed the latest frame.
	p.state.LastHeard, p.state.Strikes = c.now, 0
	p.state.LastEcho, p.state.Echoed = max(c.timeline.next, 1)-1, c.timeline.next > 0
	p.stalled, p.onTimeRun = false, 0
	c.sync.boostUntil = c.now + syncEarlyPeriod
	c.emit(PlayerRejoined{Player: p.state.ID, Tick: m.Tick, Rejoins: p.state.Rejoins})
	return nil
}

// onRejoinMessage handles the messages of reconnection from a player.
func (c *Core) onRejoinMessage(p *player, m msg.Message) error {
	switch m := m.(type) {
	case *msg.SnapshotChunk:
		return c.onChunk(p, m)
	case *msg.SnapshotDigest:
		return c.snapshotDigest(p, m)
	case *msg.SnapshotVerdict:
		t := c.transferTo(p.state.ID)
		if t == nil || p.state.Status != StatusRejoining {
			return fmt.Errorf("%w: verdict from %d", ErrTransfer, p.state.ID)
		}
		return c.onVerdict(t, m)
	case *msg.CaughtUp:
		if p.state.Status != StatusRejoining {
			return fmt.Errorf("%w: CaughtUp from %d", ErrTransfer, p.state.ID)
		}
		return c.onCaughtUp(p, m)
	}
	return fmt.Errorf("%w: %T", ErrUnexpected, m)
}

// removeAway removes a player that is away or rejoining at a scheduled
// tick, as a timeout.
func (c *Core) removeAway(p *player, reason msg.RemovalReason) {
	if t := c.transferTo(p.state.ID); t != nil {
		c.endTransfer(t)
	}
	c.scheduleRemoval(p, reason)
}

// rejoinTick enforces the reconnection deadlines and sends keepalives.
func (c *Core) rejoinTick() {
	if c.phase != PhasePlaying {
		return
	}
	for _, p := range c.players {
		if (p.state.Status == StatusAway || p.state.Status == StatusRejoining) && c.now >= p.awayUntil {
			c.removeAway(p, msg.ReasonTimeout)
		}
	}
	for _, t := range slices.Clone(c.rejoin.transfers) {
		if t.loaded {
			continue
		}
		if d := c.player(t.donor); d == nil || d.state.Status != StatusActive {
			c.nextDonor(t, "donor gone")
			continue
		}
		if c.now >= c.scheduled(t.tick)+c.cfg.Rejoin.DonorTimeout {
			c.nextDonor(t, "donor too slow")
			continue
		}
		if c.now >= t.alive {
			t.alive = c.now + rejoinKeepalive
			c.send(t.to, &msg.RejoinKeepalive{NextTick: c.timeline.next, Chunks: uint16(t.chunks)})
		}
	}
}

// rejoinDeadline is when rejoinTick is next due, if ever.
func (c *Core) rejoinDeadline(at func(time.Duration)) {
	if c.phase != PhasePlaying {
		return
	}
	for _, p := range c.players {
		if p.state.Status == StatusAway || p.state.Status == StatusRejoining {
			at(p.awayUntil)
		}
	}
	for _, t := range c.rejoin.transfers {
		if !t.loaded {
			at(t.alive)
			at(c.scheduled(t.tick) + c.cfg.Rejoin.DonorTimeout)
		}
	}
}
