// Command tickwire is the one binary of the tickwire project: it hosts
// matches, runs bots and demos, impairs networks for testing and measures
// the library.
//
// Subcommands (docs/ documents every flag and JSON field, a page per command or mode):
//
//	tickwire serve                the server: rooms of every network model, with admin HTTP
//	                              (/healthz, /readyz, /metrics); "tickwire relay" is its alias
//	tickwire demo [--mode M]      a whole match of bots over loopback UDP through netsim
//	tickwire bot [--mode M]       bot clients that play a match against a server
//	                              (M: lockstep, the default, fogauth, predict, statesync, echo)
//	tickwire bench codec|sim|transport|relay
//	                              the measured figures of BENCHMARKS.md
//	tickwire netsim               an impairing UDP proxy
//
// Run "tickwire help" for the list. Exit status: 0 on success, 2 on a usage
// error, 1 on any other failure (for demo and bot: clients not in sync; with
// --mode predict: prediction parity does not hold; with --mode statesync also a
// desync that was not recovered; with --mode echo a line not heard once, in order).
//
// Each network model is one file, mode_NAME.go, implementing the mode
// interface of mode.go (its --mode word, its network model, its
// server_config.toml table, the room models serve hosts, its demo and
// bot); the bots themselves live in the model's packages.
package main
