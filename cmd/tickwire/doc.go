// Command tickwire is the one binary of the tickwire project: it hosts
// matches, runs bots and demos, impairs networks for testing and measures
// the library.
//
// Subcommands (docs/ documents every flag and JSON field, a page per command or mode):
//
//	tickwire demo                 a whole relay match of bots over loopback UDP through netsim
//	tickwire relay                the relay server, with admin HTTP (/healthz, /readyz, /metrics)
//	tickwire bot                  bot clients that play a match against a relay
//	tickwire demo|bot --mode predict
//	                              the same for client prediction (demo --local: no sockets)
//	tickwire bench codec|sim|transport|relay
//	                              the measured figures of BENCHMARKS.md
//	tickwire netsim               an impairing UDP proxy
//
// Run "tickwire help" for the list. Exit status: 0 on success, 2 on a usage
// error, 1 on any other failure (for demo and bot: clients not in sync; with
// --mode predict: prediction parity does not hold; with --mode statesync also a
// desync that was not recovered).
package main
