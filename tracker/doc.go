// Package tracker is tickwire's tracking server (game browser): a directory
// where servers publish their open rooms and players browse them, plus join
// codes that resolve to a room. It is not a relay: no game data flows
// through it.
//
// The parts:
//
//   - Listing: the seed's GameListing as JSON (host, room, map, rules,
//     players, status, engine, network_model, region, server_key), validated
//     on the way in (unknown fields refused, every string and list bounded).
//   - Directory: the service logic over a Store — publish (answers an id and
//     a secret token), heartbeat/update and unpublish (the token required),
//     browse with filters, listings that expire without heartbeats, a bound
//     on listings, join codes. Time is passed in (Config.Now), so expiry is
//     tested in virtual time.
//   - Store: MemoryStore (the default: no dependency) and, in
//     tracker/redisstore, a Redis store so that several tracker instances
//     behind a load balancer serve one directory.
//   - Handler: the HTTP+JSON API (below), with a per-address rate limit,
//     bounded request bodies and clear 4xx errors, plus /healthz, /readyz
//     and /metrics.
//   - Client, Browse and Publisher: the client side — one tracker's API, a
//     federated browse over several trackers at once (merged, de-duplicated,
//     tagged with their source, working while some are down; plain http://
//     refused except on loopback, at most 10 trackers), and a publisher that
//     keeps a server's rooms listed.
//
// # HTTP API
//
//	POST   /v1/listings              body: Listing          → 201 {"id","token","expires"}
//	PUT    /v1/listings/{id}         body: Listing, header Authorization: Bearer TOKEN → 200 {"id","expires"}
//	DELETE /v1/listings/{id}         header Authorization: Bearer TOKEN → 204
//	GET    /v1/listings?map=&mod=&version=&network_model=&status=&free_seats=&region=&engine=
//	                                 → 200 {"listings":[Listing…]}
//	POST   /v1/join-codes            body: {"host","room","server_key","network_model","ttl_seconds","multi_use"}
//	                                 → 201 {"code","expires"}
//	GET    /v1/join-codes/{code}     → 200 {"host","room","server_key","network_model"} (a single-use code is gone after)
//
// Errors are {"error": "..."} with 400 (malformed or invalid body, naming
// the field), 401 (missing or wrong token), 404, 409 (listing limit
// reached), 413 (body too large), 429 (rate limited, with Retry-After).
//
// # Join codes
//
// A code is "TICK-" and four characters of an alphabet without look-alikes
// (no 0/O, 1/I/L, U): 30⁴ = 810,000 codes. Codes expire (default 10
// minutes) and are single use unless the host registers them multi-use;
// resolution is case-insensitive and ignores the dash. Guessing is bounded
// by the per-address rate limit.
package tracker
