package statesync_test

import (
	"fmt"
	"iter"
	"time"

	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/msg"
)

// tally is a statesync.Engine: one entity (id 0) holding the sum of every
// input byte the clients sent.
type tally struct{ sum byte }

func (t *tally) Step(_ uint32, inputs []msg.ClientInput) {
	for _, in := range inputs {
		for _, b := range in.Data {
			t.sum += b
		}
	}
}

func (t *tally) Entities() iter.Seq2[uint32, []byte] {
	return func(yield func(uint32, []byte) bool) { yield(0, []byte{t.sum}) }
}

func (t *tally) SetEntity(id uint32, data []byte) error {
	if id != 0 || len(data) != 1 {
		return fmt.Errorf("tally: bad entity %d", id)
	}
	t.sum = data[0]
	return nil
}

func (t *tally) RemoveEntity(uint32) { t.sum = 0 }
func (t *tally) Reset()              { t.sum = 0 }

// A Client runs the game's Engine from the inputs the server relays and
// votes on its state hash. Here two clients and the server core exchange
// messages in memory on an explicit clock; over a network, the server is
// statesync/host's model in a tickwire server and the messages travel
// encoded (msg.Append) on a transport connection.
func ExampleClient() {
	srv := statesync.NewServer(statesync.Config{}, 0)
	clients := map[uint32]*statesync.Client{}
	games := map[uint32]*tally{}
	for id := uint32(1); id <= 2; id++ {
		games[id] = &tally{}
		clients[id] = statesync.NewClient(statesync.ClientConfig{}, games[id])
		if err := srv.Join(0, id); err != nil {
			fmt.Println(err)
			return
		}
	}
	for now := time.Duration(0); now < 2*time.Second; now += 5 * time.Millisecond {
		srv.Tick(now)
		for srv.HasReady() {
			rd := srv.Ready()
			for _, e := range rd.Messages {
				for id, c := range clients {
					if e.Broadcast || e.To == id {
						_ = c.Step(e.Msg)
					}
				}
			}
			srv.Advance(rd)
		}
		for id, c := range clients {
			if c.Running() {
				c.Input([]byte{1}) // this client's input for the next frame
			}
			for c.HasReady() {
				rd := c.Ready()
				for _, m := range rd.Messages {
					_ = srv.Step(now, id, m)
				}
				c.Advance(rd)
			}
		}
	}
	f := min(clients[1].Frame(), clients[2].Frame()) - 1
	h1, ok1 := clients[1].HashAt(f)
	h2, ok2 := clients[2].HashAt(f)
	fmt.Println("frames played:", f > 30, "same state:", ok1 && ok2 && h1 == h2, "sum:", games[1].sum > 0)
	// Output: frames played: true same state: true sum: true
}
