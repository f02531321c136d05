// Package admin is the relay's operator HTTP endpoint: liveness, readiness
// and Prometheus metrics.
//
//	GET /healthz   200 "ok" while the process serves requests
//	GET /readyz    200 "ready" once the relay listens and every check added
//	               with AddCheck passes; 503 naming the cause otherwise
//	GET /metrics   Prometheus text exposition
//
// The metrics are read from a Source at scrape time, so the relay keeps
// plain counters of its own and this package owns the Prometheus types.
// Every Server has its own prometheus.Registry (never the global one):
//
//	tickwire_relay_active_games           gauge    games in progress
//	tickwire_relay_players                gauge    connected players
//	tickwire_relay_late_orders_total      counter  submissions after their tick's deadline
//	tickwire_relay_strikes_total          counter  lateness strikes given
//	tickwire_relay_qos_adjustments_total  counter  run-ahead/deadline changes
//	tickwire_relay_desyncs_total          counter  sync-hash mismatches detected
//	tickwire_relay_removals_total         counter  players removed from a match
//	tickwire_relay_host_stalls_total      counter  stalls of the relay itself seen by a game
//	tickwire_relay_bytes_received_total   counter  UDP payload bytes in
//	tickwire_relay_bytes_sent_total       counter  UDP payload bytes out
//	tickwire_relay_broadcast_lateness_seconds  histogram  how late tick frames
//	                                      left against the tick schedule
//	tickwire_relay_malformed_messages_total{kind}  counter  messages that did not decode
//	tickwire_relay_rejected_messages_total{kind}   counter  messages the relay refused
//	tickwire_relay_handshakes_refused_total{reason}  counter  secure handshakes refused
//	tickwire_relay_token_refusals_total{reason}      counter  joins refused for their token
//
// Stats.Extra adds series known only at scrape time, with labels: the
// server's games, waiting rooms and players by network_model, refused
// joins by reason, expired rooms, rate-limited messages, and the network
// models' own metrics (see Metric). These come together with the
// standard go_* and process_* collectors.
package admin
