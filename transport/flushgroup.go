package transport

import (
	"net"

	"golang.org/x/net/ipv4"
)

// FlushGroup flushes several connections together: on a UDP socket the
// datagrams of all of them leave in one batch (one sendmmsg on Linux)
// instead of one system call per connection, so a game server flushing a
// room's players after a tick pays one call for the room. The caller
// writes them itself, which spares the connections' goroutines a wake-up;
// connections over other PacketConns are flushed as by [Conn.Flush].
//
// The zero value is ready to use. A FlushGroup keeps its buffers between
// calls and is not safe for concurrent use; the connections it flushes
// may be used concurrently as usual.
type FlushGroup struct {
	arena []byte
	dgs   []groupDatagram
	wake  []*Conn
	ms    []ipv4.Message
	bufs  [][]byte
}

// groupDatagram is a datagram of the arena waiting for the batch write.
type groupDatagram struct {
	ep         *endpoint
	addr       net.Addr
	start, end int
}

// Flush sends the messages queued on conns now, as Conn.Flush does for
// each. A datagram another goroutine of a connection sends meanwhile may
// overtake the group's, which the peer handles as any reordering.
func (g *FlushGroup) Flush(conns ...*Conn) { g.send(conns, true) }

// send pumps conns into one batch write; with flush, their queued
// messages go now instead of at the next FlushInterval tick.
func (g *FlushGroup) send(conns []*Conn, flush bool) {
	g.reset()
	for _, c := range conns {
		if flush {
			c.mu.Lock()
			c.sess.Flush()
			c.mu.Unlock()
		}
		if c.ep.batch == nil {
			c.poke()
			continue
		}
		if _, _, wake := c.pump(false, g); wake {
			g.wake = append(g.wake, c)
		}
	}
	g.write()
	for _, c := range g.wake {
		c.poke()
	}
	clear(g.wake) // drop the references until the next call
}

// reset empties the group for a new batch.
func (g *FlushGroup) reset() {
	g.arena, g.dgs, g.wake = g.arena[:0], g.dgs[:0], g.wake[:0]
}

// add copies a connection's datagrams into the group.
func (g *FlushGroup) add(c *Conn, dgs [][]byte) {
	for _, d := range dgs {
		start := len(g.arena)
		g.arena = append(g.arena, d...)
		g.dgs = append(g.dgs, groupDatagram{ep: c.ep, addr: c.addr, start: start, end: len(g.arena)})
	}
}

// write sends the collected datagrams, one batch per run of datagrams of
// the same socket.
func (g *FlushGroup) write() {
	for i := 0; i < len(g.dgs); {
		ep := g.dgs[i].ep
		g.ms, g.bufs = g.ms[:0], g.bufs[:0]
		j := i
		for ; j < len(g.dgs) && g.dgs[j].ep == ep; j++ {
			g.bufs = append(g.bufs, g.arena[g.dgs[j].start:g.dgs[j].end])
		}
		for k := i; k < j; k++ {
			g.ms = append(g.ms, ipv4.Message{Buffers: g.bufs[k-i : k-i+1], Addr: g.dgs[k].addr})
		}
		ep.writeMessages(g.ms)
		i = j
	}
	clear(g.ms[:cap(g.ms)]) // drop the addresses until the next call
	clear(g.dgs)
}
