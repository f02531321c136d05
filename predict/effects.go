package predict

// effectKey is a side effect's identity: the action that caused it (its
// player and action sequence, which name the originating input) and what
// happened (kind, type, target). A replay recreates the same key, the
// server's event of the same effect carries it, and neither depends on a
// tick, so an effect predicted at one tick and applied by the server at a
// later one (a late input) is still one effect. A Game gives an action at
// most one event of each (kind, type, target).
type effectKey struct {
	player    PlayerID
	actionSeq uint32
	kind      EventKind
	typ       uint8
	target    EntityID
}

// actionKey names one action of one player.
type actionKey struct {
	player PlayerID
	seq    uint32
}

func effectOf(e *GameEvent) effectKey {
	return effectKey{player: e.Player, actionSeq: e.ActionSeq, kind: e.Kind, typ: e.Type, target: e.Target}
}

// effect is a remembered side effect: fired from the prediction and not
// yet heard from the server, or heard (at the server's tick).
type effect struct {
	heard bool
	tick  uint64
}

// ending is an action's last event as the server published it: its
// rejection or the despawn of what it spawned.
type ending struct{ tick, id uint64 }

// effectLedger makes every side effect fire exactly once by construction.
// An effect is remembered from the moment it fires (predicted or heard)
// until no replay and no server event can bring it back:
//
//   - heard from the server at tick T: forgotten once the anchor is at or
//     past T (replays start after the anchor, whose state holds the effect);
//   - predicted but not heard: forgotten once the server ended its action
//     (rejection or despawn at tick T, delivered on the reliable lane, so
//     every earlier event of the action was delivered before it) and the
//     anchor is at or past T: the server never produced this effect, and
//     no replay can.
//
// Only effects of actions fire from the prediction; an event no action
// caused (a respawn) fires when the server reports it. The bound is never
// "forget and fire again": a full ledger stops firing effects from the
// prediction (the server's events fire them), and an effect the server
// reports while the ledger is full keeps the prediction silent until the
// anchor is past its tick.
type effectLedger struct {
	limit  int
	fired  map[effectKey]effect
	ended  map[actionKey]ending
	anchor uint64
	blind  uint64 // newest tick of a heard effect not remembered (ledger full)

	deferred uint64 // predicted effects left to the server's event
}

func newEffectLedger(limit int) effectLedger {
	return effectLedger{limit: limit, fired: make(map[effectKey]effect), ended: make(map[actionKey]ending)}
}

func (l *effectLedger) full() bool { return len(l.fired)+len(l.ended) >= l.limit }

// predicted reports whether a predicted event's effect fires now, and
// remembers it if so.
func (l *effectLedger) predicted(e *GameEvent) bool {
	if e.ActionSeq == 0 {
		return false
	}
	k := effectOf(e)
	if _, ok := l.fired[k]; ok {
		return false
	}
	if l.full() || l.anchor < l.blind {
		l.deferred++
		return false
	}
	l.fired[k] = effect{}
	return true
}

// heard reports whether a server event's effect fires now (it was not
// predicted), and remembers it. The event is new: the client deduplicates
// server events by id before.
func (l *effectLedger) heard(e *Event) bool {
	if e.ActionSeq == 0 {
		return true
	}
	if e.Kind == EventRejected || e.Kind == EventDespawn {
		a := actionKey{e.Player, e.ActionSeq}
		if _, ok := l.ended[a]; ok || !l.full() {
			l.ended[a] = ending{tick: e.Tick, id: e.ID}
		}
	}
	k := effectOf(&e.GameEvent)
	if f, ok := l.fired[k]; ok {
		if !f.heard {
			l.fired[k] = effect{heard: true, tick: e.Tick}
		}
		return false
	}
	if l.full() {
		l.blind = max(l.blind, e.Tick)
		return true
	}
	l.fired[k] = effect{heard: true, tick: e.Tick}
	return true
}

// settle forgets what can no longer come back, now that the anchor is at
// anchor and the reliable lane delivered every event up to id reliable.
// Nothing of an action of the client's own (player me) at or after
// pendingFrom is forgotten: its input is still replayed, unconfirmed.
func (l *effectLedger) settle(anchor, reliable uint64, me PlayerID, pendingFrom uint32) {
	l.anchor = anchor
	done := func(a actionKey) bool {
		end, ok := l.ended[a]
		return ok && anchor >= end.tick && reliable >= end.id
	}
	for k, f := range l.fired {
		if k.player == me && pendingFrom != 0 && k.actionSeq >= pendingFrom {
			continue
		}
		if (f.heard && anchor >= f.tick) || (!f.heard && done(actionKey{k.player, k.actionSeq})) {
			delete(l.fired, k)
		}
	}
	for a := range l.ended {
		if done(a) {
			delete(l.ended, a)
		}
	}
}

// size is the number of entries remembered.
func (l *effectLedger) size() int { return len(l.fired) + len(l.ended) }
