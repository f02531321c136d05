package secure

// ReplayWindow is how many sequences behind the highest one received a
// datagram may still arrive (reordered) and be accepted once.
const ReplayWindow = 1024

// replayWindow remembers which of the last ReplayWindow sequences arrived:
// bit seq%ReplayWindow of bits, valid for seq in (top-ReplayWindow, top].
type replayWindow struct {
	top  uint64
	any  bool
	bits [ReplayWindow / 64]uint64
}

// fresh reports whether seq has not been received and is inside the window.
func (w *replayWindow) fresh(seq uint64) bool {
	switch {
	case !w.any || seq > w.top:
		return true
	case w.top-seq >= ReplayWindow:
		return false
	}
	i := seq % ReplayWindow
	return w.bits[i/64]&(1<<(i%64)) == 0
}

// mark records seq as received; it must be fresh.
func (w *replayWindow) mark(seq uint64) {
	switch {
	case !w.any || seq-w.top >= ReplayWindow && seq > w.top:
		w.bits = [len(w.bits)]uint64{}
		w.top, w.any = seq, true
	case seq > w.top:
		for s := w.top + 1; s < seq; s++ { // forget the slots the window slides over
			i := s % ReplayWindow
			w.bits[i/64] &^= 1 << (i % 64)
		}
		w.top = seq
	}
	i := seq % ReplayWindow
	w.bits[i/64] |= 1 << (i % 64)
}
