package predict

// mergeDue returns the input applied at a tick when n inputs of a client
// fall due at once (at(n-1) on time, the others late): the newest one's
// movement, every input's actions in sequence order, a jump if any of
// them asked for one, and the view of the first input that carried an
// action (an action is aimed by the input it came in, not by a later
// one), else the newest one's. The server applies late inputs so, and a
// client replays its own late inputs the same way.
func mergeDue(n int, at func(i int) *Input) Input {
	in := *at(n - 1)
	if n == 1 {
		return in
	}
	var actions []Action
	for i := range n {
		x := at(i)
		in.Jump = in.Jump || x.Jump
		if len(x.Actions) > 0 && len(actions) == 0 {
			in.Yaw, in.Pitch = x.Yaw, x.Pitch
		}
		actions = append(actions, x.Actions...)
	}
	in.Actions = actions
	return in
}
