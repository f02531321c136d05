// Package dashboard serves a live view of a tickwire server on its admin
// address: a JSON API and a page that draws it.
//
//	GET /api/v1/rooms          every room: name, network_model, players,
//	                           tick, state, age, bytes/s, the model's counters
//	GET /api/v1/rooms/{name}   one room: the same, per-player series (RTT
//	                           history, jitter, loss), the driver's turn
//	                           times against the tick budget and the
//	                           model's own Report (room.Reporter)
//	GET /dashboard/            the page (embedded; plain JS, no CDN)
//
// A Sampler reads the server every Interval from its own goroutine
// (server.Server.RoomViews: atomic snapshots the room drivers publish, and
// each connection's figures) into fixed-size rings, so memory is bounded
// by rooms × players × History and a room's loop never waits for a
// viewer. Requests read the last sample; its JSON is encoded once per
// sample however many viewers ask. Access is the admin server's
// (admin.Server.SetToken): the page itself holds no data and sends the
// token it finds in its address's fragment (#token=…) with its requests.
package dashboard
