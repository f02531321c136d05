package lockstep

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/tickwire/tickwire/lockstep/msg"
	"github.com/tickwire/tickwire/protocol"
	"github.com/tickwire/tickwire/server/join"
	"github.com/tickwire/tickwire/server/lanes"
	"github.com/tickwire/tickwire/transport"
)

// LightPlayer is a seated light client of the relay without I/O: the
// player of a load generator that drives thousands of them from one
// goroutine over shared sockets (transport.Swarm). It runs the relay
// client's own core (the same protocol as RelayClient: seed commitment,
// calibration, submissions at the submit offset, liveness, sync hashes)
// and the game loop over LightSim and LightInput, so it plays from what
// it receives, as a client would, with no simulation.
//
// Feed it the relay's messages with Handle, call Tick at Next, and send
// what Output hands out. Every method takes now, the caller's monotonic
// clock. A LightPlayer is not safe for concurrent use.
type LightPlayer struct {
	core  *clientCore
	codec msg.Codec
	loop  GameLoop
	net   lightNet
	buf   []byte
	err   error
}

// NewLightPlayer returns the player of seat; rand supplies its seed
// contribution.
func NewLightPlayer(seat join.Seat, rand io.Reader) (*LightPlayer, error) {
	var contribution [32]byte
	var nonce [16]byte
	if _, err := io.ReadFull(rand, contribution[:]); err != nil {
		return nil, fmt.Errorf("lockstep: seed contribution: %w", err)
	}
	if _, err := io.ReadFull(rand, nonce[:]); err != nil {
		return nil, fmt.Errorf("lockstep: seed nonce: %w", err)
	}
	cfg := RelayClientConfig{MetricsInterval: DefaultMetricsInterval, MaxQueuedTicks: DefaultMaxQueuedTicks}
	p := &LightPlayer{core: newClientCore(cfg, slog.New(slog.DiscardHandler), seat, contribution, nonce)}
	p.net.core = p.core
	p.loop = GameLoop{Sim: LightSim{}, Net: &p.net, Input: NewLightInput(seat.Player)}
	return p, nil
}

// Handle processes a message of the relay received at now.
func (p *LightPlayer) Handle(now time.Duration, data []byte) {
	m, err := p.codec.Decode(data)
	if err != nil {
		p.core.Fail(fmt.Errorf("%w: %v", ErrProtocol, err))
		return
	}
	p.core.Step(now, m)
	p.play(now)
}

// Tick runs the timers due at now.
func (p *LightPlayer) Tick(now time.Duration) {
	p.core.Tick(now)
	p.play(now)
}

// play applies the confirmed ticks, which submits orders and reports hashes.
func (p *LightPlayer) play(now time.Duration) {
	p.net.now = now
	for p.err == nil {
		n, err := p.loop.Step()
		if err != nil {
			p.err = err
		}
		if n == 0 {
			return
		}
	}
}

// Next is when Tick is due, if it is.
func (p *LightPlayer) Next() (time.Duration, bool) { return p.core.NextDeadline() }

// ObserveRTT records the connection's smoothed round-trip time.
func (p *LightPlayer) ObserveRTT(rtt time.Duration) { p.core.ObserveRTT(rtt) }

// Output sends what the player has to send with send (the data is only
// valid during the call); a message send refuses goes back to the core.
func (p *LightPlayer) Output(send func(lane transport.ChannelID, data []byte) error) {
	for p.core.HasReady() {
		for _, m := range p.core.Ready().Messages {
			var err error
			if p.buf, err = p.codec.Append(p.buf[:0], m); err == nil {
				err = send(lanes.Of(msg.IsSample(m)), p.buf)
			}
			if err != nil {
				var me *msg.Error
				p.core.Unsent(m, errors.Is(err, transport.ErrMessageTooLarge) || errors.As(err, &me))
			}
		}
		p.core.Advance()
	}
}

// Status is the player's status.
func (p *LightPlayer) Status() Status { return p.core.st.status }

// Applied is the ticks the player has applied.
func (p *LightPlayer) Applied() uint64 { return p.loop.Applied() }

// Err is why the player stopped playing: the game loop's error, or the
// client's (a desync, a removal, the connection's end), or nil.
func (p *LightPlayer) Err() error {
	if p.err != nil {
		return p.err
	}
	return p.core.st.err
}

// Fail ends the player: its connection ended.
func (p *LightPlayer) Fail(err error) { p.core.Fail(err) }

// lightNet is the NetworkModel the game loop sees: the core at the
// player's now.
type lightNet struct {
	core *clientCore
	now  time.Duration
}

func (n *lightNet) SubmitOrder(o protocol.TimestampedOrder) { n.core.submit(o, n.now) }
func (n *lightNet) PollTick() (protocol.TickOrders, bool)   { return n.core.poll(n.now) }
func (n *lightNet) ReportSyncHash(tick, hash uint64)        { n.core.reportHash(tick, hash, n.now) }
func (n *lightNet) Status() Status                          { return n.core.st.status }
func (n *lightNet) Diagnostics() Diagnostics                { return n.core.st.diag }
