package predict

import (
	"fmt"
	"slices"
	"time"
)

// receiveInputs validates a client's InputMessage whole, then queues what
// it accepts. The server trusts intents only: an input carries no
// position, movement intents are checked against the game's limits, and
// speed, acceleration, cooldowns and resources are the rules' to enforce
// when the input is applied.
//
// Per input, in order: a sequence at or below the newest applied one, or
// already queued, is a duplicate and ignored (inputs are idempotent); one
// that fails the game's ValidateInput, repeats an action sequence, exceeds
// the rate budget or overflows the queue is rejected and counted. An
// intended tick beyond MaxAhead is clamped to it.
func (s *Server) receiveInputs(c *client, msg []byte) error {
	m := &s.scratch.in
	if err := m.Parse(msg); err != nil {
		return err
	}
	if m.Player != c.id {
		return fmt.Errorf("%w: player %d sent inputs as %d", ErrRejected, c.id, m.Player)
	}
	switch {
	case m.AckedSnap == 0:
		c.ackedSnap = 0 // the client holds no baseline: send it a full snapshot
	case m.AckedSnap > c.ackedSnap && m.AckedSnap <= s.game.Tick():
		c.ackedSnap = m.AckedSnap
	}
	s.refill(c)
	horizon := s.game.Tick() + uint64(s.cfg.MaxAhead)
	for i := range m.Inputs {
		in := &m.Inputs[i]
		if in.Sequence <= c.appliedSeq || c.queued(in.Sequence) {
			continue
		}
		if reason, err := s.validate(c, in); err != nil {
			s.stats.InputsRejected++
			s.refuse(c, in, reason)
			continue
		}
		c.tokens -= time.Second
		tick, clamped := in.IntendedTick, false
		if tick > horizon {
			tick, clamped = horizon, true
			s.stats.InputsClamped++
		}
		for _, a := range in.Actions {
			c.actionSeq = max(c.actionSeq, a.Sequence)
		}
		kept := *in
		kept.Actions = cloneActions(in.Actions)
		j, _ := slices.BinarySearchFunc(c.queue, in.Sequence, func(q queued, seq uint32) int { return int(q.in.Sequence) - int(seq) })
		c.queue = slices.Insert(c.queue, j, queued{in: kept, tick: tick, clamped: clamped})
	}
	return nil
}

// validate checks an input before it is queued; a refused input's reason
// is one of the Refused values, 0 for a repeated action (which is not
// answered: it is not a new action).
func (s *Server) validate(c *client, in *Input) (int32, error) {
	for _, a := range in.Actions {
		if a.Sequence <= c.actionSeq {
			return 0, fmt.Errorf("%w: action sequence %d repeated", ErrRejected, a.Sequence)
		}
	}
	switch {
	case c.tokens < time.Second:
		return RefusedRate, fmt.Errorf("%w: over the input rate", ErrRejected)
	case len(c.queue) >= s.cfg.MaxQueued:
		return RefusedQueueFull, fmt.Errorf("%w: input queue full", ErrRejected)
	}
	if err := s.game.ValidateInput(in); err != nil {
		return RefusedInvalid, err
	}
	return 0, nil
}

// refuse answers every action of an input the server will never apply
// with an EventRejected naming the reason (published at the next tick),
// and remembers the actions' sequences so no later copy of the input is
// applied after its refusal.
func (s *Server) refuse(c *client, in *Input, reason int32) {
	if reason == 0 {
		return
	}
	for _, a := range in.Actions {
		c.actionSeq = max(c.actionSeq, a.Sequence)
		s.refusals = append(s.refusals, Event{InputSeq: in.Sequence, GameEvent: GameEvent{
			Kind: EventRejected, Type: TypeRefused, Player: c.id, ActionSeq: a.Sequence, Value: reason}})
	}
}

// refill adds the rate budget earned since the last refill: MaxInputRate
// inputs per second, at most one second's worth banked.
func (s *Server) refill(c *client) {
	earned := (s.now - c.refilled) * time.Duration(s.cfg.MaxInputRate)
	c.refilled = s.now
	c.tokens = min(c.tokens+earned, time.Duration(s.cfg.MaxInputRate)*time.Second)
}

func (c *client) queued(seq uint32) bool {
	_, ok := slices.BinarySearchFunc(c.queue, seq, func(q queued, seq uint32) int { return int(q.in.Sequence) - int(seq) })
	return ok
}

// cloneActions copies actions out of a message buffer.
func cloneActions(as []Action) []Action {
	if len(as) == 0 {
		return nil
	}
	out := make([]Action, len(as))
	for i, a := range as {
		out[i] = a
		out[i].Params = slices.Clone(a.Params)
	}
	return out
}
