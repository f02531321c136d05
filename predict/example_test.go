package predict_test

import (
	"fmt"
	"time"

	"github.com/tickwire/tickwire/predict"
	"github.com/tickwire/tickwire/predict/actiongame"
	"github.com/tickwire/tickwire/sim/action"
)

// A Session drives a predicting Client over a Network. Here the network
// is the in-process server emulation (LocalServer), stepped on an
// explicit clock; over a real server, netlayer.Open returns the Network
// and netlayer.Run steps the session in real time. The game is any
// predict.Game (here the reference action game).
func ExampleSession() {
	newGame := func() predict.Game { return actiongame.New(action.Config{TickRate: 30}, 1) }
	local := predict.NewLocalServer(predict.ServerConfig{TickRate: 30}, newGame())
	net, err := local.Connect(0, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := predict.NewClient(predict.ClientConfig{}, newGame())
	s := &predict.Session{Client: c, Net: net}
	right := func(uint64) predict.Input { return predict.Input{MoveX: 127} } // hold the stick right
	for now := time.Duration(0); now < time.Second; now += time.Millisecond {
		if err := s.Step(now, right); err != nil {
			fmt.Println(err)
			return
		}
	}
	me, _ := c.Game().PlayerEntity(c.Player())
	v, _ := c.Game().View(me)
	fmt.Println("player", c.Player(), "predicting:", c.Predicting(), "moved right:", v.Vel[0] > 0)
	// Output: player 1 predicting: true moved right: true
}
