package room_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/tickwire/tickwire/server/room"
	"github.com/tickwire/tickwire/transport"
)

// TestInbox: posts from many goroutines arrive once each, in each
// poster's order, and Ready signals after a Post.
func TestInbox(t *testing.T) {
	in := room.NewInbox()
	select {
	case <-in.Ready():
		t.Fatal("an empty inbox is ready")
	default:
	}
	const seats, each = 4, 500
	var wg sync.WaitGroup
	for s := range seats {
		wg.Go(func() {
			for i := range each {
				in.Post(room.Inbound{Seat: s, Msg: transport.Message{Data: []byte{byte(i), byte(i >> 8)}}})
			}
		})
	}
	wg.Wait()
	<-in.Ready()
	if in.Len() != seats*each {
		t.Fatalf("Len %d", in.Len())
	}
	got := in.Take(nil)
	next := make([]int, seats)
	for _, m := range got {
		if i := int(m.Msg.Data[0]) | int(m.Msg.Data[1])<<8; i != next[m.Seat] {
			t.Fatalf("seat %d: message %d, want %d", m.Seat, i, next[m.Seat])
		}
		next[m.Seat]++
	}
	if len(got) != seats*each || in.Len() != 0 || len(in.Take(nil)) != 0 {
		t.Fatalf("took %d, %d left", len(got), in.Len())
	}
	end := errors.New("gone")
	in.Post(room.Inbound{Seat: 2, Err: end})
	if got := in.Take(got[:0]); len(got) != 1 || got[0].Err != end {
		t.Fatalf("a seat's end: %+v", got)
	}
}

// TestInboxPutWakesOnlyOnWake: Put queues without waking the room (a
// read batch's messages), Wake wakes it once for all of them.
func TestInboxPutWakesOnlyOnWake(t *testing.T) {
	in := room.NewInbox()
	for s := range 3 {
		in.Put(room.Inbound{Seat: s})
	}
	select {
	case <-in.Ready():
		t.Fatal("Put woke the room")
	default:
	}
	in.Wake()
	in.Wake()
	<-in.Ready()
	select {
	case <-in.Ready():
		t.Fatal("two wakes before a turn woke the room twice")
	default:
	}
	if got := in.Take(nil); len(got) != 3 {
		t.Fatalf("took %d, want 3", len(got))
	}
}
