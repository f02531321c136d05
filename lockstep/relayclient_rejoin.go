package lockstep

import (
	"context"
	"errors"
	"fmt"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/transport"
)

// ErrNoRejoin: the relay gave this seat no rejoin secret (its rooms take
// no rejoins), or the client is an observer.
var ErrNoRejoin = errors.New("lockstep: the seat cannot be rejoined")

// JoinObserver joins the running match of room as an observer over an
// established connection: no seat, no orders. The relay sends a donor's
// snapshot and the tick frames, both delayed by delayTicks or by the
// room's own delay, whichever is longer; the game loop loads the snapshot
// (GameLoop does, for a Simulation that is a Restorer) and applies
// every frame. JoinObserver takes conn over as JoinRelay does.
func JoinObserver(ctx context.Context, conn *transport.Conn, room string, delayTicks uint32, cfg RelayClientConfig) (*RelayClient, error) {
	c := newShell(conn, cfg)
	seat, err := join.Join(ctx, conn, join.Request{Room: room, NetworkModel: NetworkModelName, MatchType: cfg.MatchType, As: join.AsSpectator})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("lockstep: %w", err)
	}
	c.model, c.room, c.seat = seat.NetworkModel, room, seat
	c.core = newClientCore(c.cfg, c.log, seat, [32]byte{}, [16]byte{})
	c.core.startRejoin(true)
	if err := c.send(&msg.ObserverHello{DelayTicks: delayTicks}); err != nil {
		conn.Close()
		return nil, err
	}
	conn.Flush()
	c.start()
	return c, nil
}

// Observer reports whether the client watches without a seat.
func (c *RelayClient) Observer() bool { return c.core.st.rejoin.observer }

// Drop ends the connection at once, as a crash or a lost network would,
// and keeps everything else (the seat's secret, the game loop's state):
// Rejoin then takes the seat again on a new connection.
func (c *RelayClient) Drop() {
	c.cancel()
	c.wg.Wait()
	old := c.conn
	ts := old.Stats()
	go old.Close() // its network may be gone: do not wait for the goodbye
	c.mu.Lock()
	if !c.dropped[old] {
		c.dropped[old] = true
		c.bytesBefore[0] += ts.BytesSent
		c.bytesBefore[1] += ts.BytesReceived
	}
	c.core.fail(errors.New("lockstep: connection dropped"))
	c.mu.Unlock()
	c.signal()
}

// Rejoin takes the client's seat again over conn, a new connection to
// the same server, after Drop or the end of the previous connection,
// with the seat's rejoin secret. The relay then has a donor send a
// snapshot, which the game loop verifies and loads; the client catches up
// and plays on (Status: Authorized, Downloading, CatchingUp, Playing).
// Rejoin takes conn over: on error it is closed.
func (c *RelayClient) Rejoin(ctx context.Context, conn *transport.Conn) error {
	if c.seat.Secret.IsZero() || c.Observer() {
		conn.Close()
		return ErrNoRejoin
	}
	c.Drop()
	seat, err := join.Join(ctx, conn, join.Request{Room: c.room, NetworkModel: NetworkModelName, MatchType: c.cfg.MatchType,
		As: join.AsRejoin, Player: c.seat.Player, Secret: c.seat.Secret})
	if err != nil {
		conn.Close()
		return fmt.Errorf("lockstep: rejoin: %w", err)
	}
	c.mu.Lock()
	c.conn = conn
	c.seat.Secret = seat.Secret
	c.core.startRejoin(false)
	c.mu.Unlock()
	c.start()
	return nil
}

// SnapshotWanted implements SnapshotExchange: the relay asked this
// client to donate its state after tick, or to witness it.
func (c *RelayClient) SnapshotWanted(tick uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.st.snapshotWanted(tick)
}

// DonateSnapshot implements SnapshotExchange: data goes to the relay in
// chunks (a donor) or as its SHA-256 (a witness), as the relay asked.
func (c *RelayClient) DonateSnapshot(tick uint64, data []byte) {
	c.mu.Lock()
	c.core.donate(tick, data)
	c.sendReady()
	c.mu.Unlock()
	c.conn.Flush()
}

// ReceivedSnapshot implements SnapshotExchange: a donor's snapshot and
// the digest and hash the others agreed for its tick, once all are in.
func (c *RelayClient) ReceivedSnapshot() (tick uint64, data []byte, agreed Agreed, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.snapshot()
}

// SnapshotChecked implements SnapshotExchange: the game loop loaded the
// snapshot of tick, or found that it does not match the agreed hash.
func (c *RelayClient) SnapshotChecked(tick uint64, loaded bool) {
	c.mu.Lock()
	c.core.checked(tick, loaded)
	c.sendReady()
	c.mu.Unlock()
	c.conn.Flush()
	c.signal()
}
