package predict

// mergeDue returns the input applied at a tick when n inputs of a client
// fall due at once (at(n-1) on time, the others late): the newest one's
// movement and view, every input's actions in sequence order, and a jump
// if any of them asked for one. The server applies late inputs so, and a
// client replays its own late inputs the same way.
func mergeDue(n int, at func(i int) *Input) Input {
	in := *at(n - 1)
	if n == 1 {
		return in
	}
	var actions []Action
	for i := range n - 1 {
		in.Jump = in.Jump || at(i).Jump
		actions = append(actions, at(i).Actions...)
	}
	in.Actions = append(actions, in.Actions...)
	return in
}
