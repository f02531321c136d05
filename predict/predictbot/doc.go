// Package predictbot plays prediction bots: each a predict.Client with
// the reference action game (predict/actiongame), its inputs chosen by
// sim/action's bot from the world the client predicts, over a network
// layer of package netlayer (a remote server's connection, or the
// in-process loopback). It is the engine of "tickwire bot --mode
// predict" and "tickwire demo --mode predict", and the example of a
// prediction client for a game developer:
//
//	Open (netlayer) ─▶ predict.Session ─▶ netlayer.Run(intent, done)
//	     ─▶ Telemetry ─▶ Player (corrections by cause, error, replay
//	        depth, input-to-ack, bytes) ─▶ Report (parity verdict)
//
// Parity holds for a client when it checked its prediction against the
// authoritative state and every correction has a cause; a lone client on
// the loopback without loss must have none at all.
package predictbot
