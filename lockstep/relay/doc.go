// Package relay is the relay's time authority for one lockstep match as a
// pure state machine: Core. It owns the tick clock, collects every
// player's orders, normalises their sub-tick timestamps, broadcasts one
// canonical TickFrame per tick and never waits for anyone. It reads no
// clock, starts no goroutine and touches no socket: the embedder (the
// relay server, or a host playing with an embedded relay) feeds it decoded
// messages and the current time, and sends what it returns.
//
// # The Ready/Advance loop
//
// In the style of etcd raft's RawNode, every input is a method call that
// takes now, the relay clock as a time.Duration since an epoch of the
// embedder's choosing (time.Since(epoch) in a server, a virtual clock in
// tests):
//
//	core, _ := relay.New(cfg, players, now)      // starts calibration
//	for {
//		select {
//		case pkt := <-packets:                  // decoded with lockstep/msg
//			core.Step(now, pkt.From, pkt.Msg)   // errors: drop, count
//		case <-timer.C:                         // set to core.NextDeadline()
//			core.Tick(now)
//		}
//		if core.HasReady() {
//			rd := core.Ready()
//			send(rd.Messages)                   // Envelope: one player or all
//			record(rd.Events)                   // logs, metrics, replays
//			core.Advance()                      // the core reuses their memory
//		}
//		next, ok := core.NextDeadline()         // re-arm the single timer
//	}
//
// Heard tells the core a player's transport showed life without a message;
// Leave removes a player whose connection ended. The messages of Ready are
// valid until Advance: the core recycles them, so a steady-state tick
// allocates nothing. Advance releases exactly what the Ready it
// acknowledges held (etcd raft's contract): output produced in between,
// such as the removal a Leave schedules while the Ready's messages are
// being sent, waits for the next Ready.
//
// # Match phases
//
//	calibrating ──► committing ──► revealing ──► playing ──► ended
//	 20 pings/player  SeedCommit     SeedReveal     TickFrames
//	 (≥15 pongs)      (also during   seed = XOR of  every tick
//	 MatchTiming ──►   calibrating)  contributions
//
// Calibration reduces each player's ping samples to a median RTT, a jitter
// (RTT p95 − p5), a one-way p95 and a clock offset, and derives the match
// timing with the robust envelope: clipped one-way p90 + 2 × clipped jitter
// p90 + safety margin, clamped to the QoS profile, and one shared run-ahead
// of ceil(deadline / tick interval). A player that does not commit or
// reveal in time is removed before play; a false reveal removes it too.
//
// # Tick windows, deadline and run-ahead
//
// Tick k's window is [Start + k·T, Start + (k+1)·T). Clients issue orders
// during the window and submit them when it closes; the relay broadcasts
// tick k at the window's end plus the deadline D, with an Idle for every
// player whose submission has not arrived. Clients simulate tick k while
// window k+RunAhead is open, so the frame is in hand when needed.
//
//	relay time ──────────────────────────────────────────────────────────►
//	          │  window k   │  window k+1 │  window k+2 │  window k+3 │
//	          ├─────────────┼─────────────┼─────────────┼─────────────┤
//	 issue ····▲·····▲·····  (sub-tick hints)
//	 submit                 ▲ window end: OrderSubmit{Tick: k}
//	 arrive                  ···▲ one-way delay (+ jitter)
//	 deadline               ├──────── D ────────┤
//	 broadcast                                  ▲ TickFrame k (Idle for the missing)
//	 a submission for k arriving after this ────┴──► dropped, LateSubmission
//	 run-ahead        simulated while window k+RunAhead is open, RunAhead = ceil(D / T)
//
// The relay never stalls: the frame goes out at its deadline whatever
// arrived. Late submissions are either the network's, which QoS
// adaptation answers, or a lag switch's, which earn strikes (below);
// Config.Strikes sets how many remove the player. In-match QoS adaptation (the seed
// design's evaluate_qos_window: an EWMA of the late rate in q15 fixed point,
// raise and lower windows, cooldown, maximum step, per-player influence
// cap, profile bounds) moves D and RunAhead for everyone, and records each
// change as a QosAdjustmentEvent. Every 30 ticks each player gets a
// TimingFeedback telling it how early its submissions arrive.
//
// # Loss recovery or lag switch
//
// The relay server carries orders on a reliable, ordered lane, so a lost
// submission arrives by retransmission about one round trip later (two if
// the retransmission is lost too), and the submissions sent meanwhile
// queue behind it and arrive with it. A lag switch holds the player's packets for longer,
// hundreds of milliseconds to seconds, and releases them in a burst, or
// keeps holding every one. The relay tells them apart by how long the
// player's flow stalls, measured against the path:
//
//	dev        how much later than its clock model expected a submission
//	           arrived (expected = sent stamp + one-way + offset)
//	envelope   4 × jitter (offset mean deviation) + SkewBudget
//	RTO        srtt + max(4·rttvar, srtt/4) + 5 ms   (RFC 6298, with the
//	           margin of time-threshold loss detection and the ack delay)
//	allowance  min(envelope + 2·RTO, 1 s)
//
//	stall: opened by a late submission with dev > envelope, starting when
//	       that one was expected (now - dev), allowance fixed from the path
//	       measured before it; closed by the next on-time submission.
//
//	late submission ─┬─ outside a stall, dev ≤ envelope ── jitter: network's
//	                 ├─ in a stall, now - start ≤ allowance ── loss: network's
//	                 └─ in a stall, now - start > allowance ── strike
//
//	one loss       ·····X━━━━━━▶ released with the 3 queued      stall ≈ 1.2 RTT: network's
//	lag switch     ·····H━━━━━━━━━━━━━━━━━━━━━━━━▶ burst          stall ≫ allowance: strikes
//	delay line     ·····H━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ (never on time)  strikes every tick
//
// The network's lateness counts in the QoS late rate, so sustained loss
// raises the deadline and run-ahead; a player struck for a stall is left
// out of it for a few windows, so one cheater cannot move everyone's
// timing. A delay line keeps earning strikes after the clock model
// re-anchors on the held flow (dev then looks small), because the stall
// only closes on time; and the held liveness echoes that inflate the
// measured round trip cannot widen the allowance of the stall that caused
// them. Impossible-early timestamp claims are a separate check
// (normalization: suspicious claims, AntiCheat strikes on ranked relays).
//
// # The relay's own stalls
//
// The players are not the only ones who can be late: the relay process
// itself stalls under load (a garbage-collection pause, CPU starvation, a
// paused VM). Every player then looks late, silent or frozen at once, and
// none of it is theirs. Seen from the core, such a stall has two shapes,
// and each has a rule:
//
//	host gap       now − max(previous now, next tick's deadline) > 2 × T:
//	               an embedder whose timer follows NextDeadline is never
//	               that late unless its process was not running. The core
//	               reports HostStall and, for a lateness L:
//	                 lag        += L + T (at most HeartbeatTimeout): tick k
//	                               is broadcast at its scheduled time + lag,
//	                               so what waited in the receive queue is
//	                               on time; each broadcast takes T/2 off the
//	                               lag (catch-up at twice the tick rate)
//	                 LastHeard  += L for everyone; open stalls move by L
//	                 frozen     counts from max(deadline + lag, resume)
//	                 queued     a submission the clock model expected
//	                            during the gap is taken to arrive when
//	                            expected: no offset or RTT sample, no
//	                            margin, no strike; on time under the lag
//	                            alone, it neither closes a stall nor
//	                            forgives strikes
//	               ticks beyond the capped lag go out Idle at once and
//	               count neither as lateness for QoS nor as strikes
//
//	shared         at a tick's deadline at least 2 players and ≥ 3/4 of the
//	lateness       active ones have no on-time submission: a late
//	               submission for that tick is no strike (it still counts
//	               in the QoS late rate, which answers a relay or common
//	               path that keeps stalling briefly with a longer deadline)
//	shared freeze  ≥ 3/4 (and ≥ 2) of the active players frozen at once:
//	               the frames are what is not getting through; frozen
//	               removals wait a further HeartbeatTimeout
//
//	relay time ─────────────────────────────────────────────────────────►
//	frames     ▲  ▲  ▲  ▲ ╳ not running ╳ ▲▲▲▲▲▲▲▲▲▲▲▲▲▲▲▲▲ ▲  ▲  ▲  ▲
//	                        (2 s)         resume: catch-up   on schedule
//	                                      at 2× the rate
//	submissions ·  ·  ·  ·  ·  ·  ·  ·  · (queued, on time under the lag)
//
// One player's lag switch is neither: the others are on time, so its
// lateness is not shared; only the submissions it was expected to deliver
// while the relay stood still escape judgement, and its stall stays open
// through the catch-up (transcripts lag_switch and host_stall, and
// TestHostStallKeepsLagSwitchDetection).
//
// # The filter chain
//
// Each submission becomes a Batch that runs through Config.Filters in
// order (DefaultFilters when nil), each a small type behind the Filter
// interface:
//
//	OrderSubmit ─► Validation ─► Normalization ─► RateControl ─► [ReplayHook] ─► AntiCheat ─► Forwarding ─► window k
//	               leaving       hints → relay     bandwidth       recording      suspicious     ceiling,
//	               player,       time, clamped     bucket, order   (optional)     claims →       into the
//	               limits        to the feasible   budget 16/tick                 strikes        tick's
//	                             envelope and      burst 128, hard                (ranked)       window
//	                             [0, T)            256/player/tick
//
// Normalization replaces each order's SubTickTime with a relay-canonical
// one: the hint is mapped through the player's clock model (offset and
// skew EWMA, jitter envelope, seeded by calibration and refined by every
// submission and liveness echo) and clamped to when the order could have
// been issued given when it arrived; claims outside the envelope count as
// suspicious. Frames list orders chronologically, player id breaking ties,
// which gives a far player's orders the same chance as a near one's.
//
// # Liveness, sync checks and removals
//
// Every frame carries a random token the client echoes in its next
// submission; a player that keeps submitting but stops echoing is frozen
// and removed. Frames ask for state hashes every 30 ticks in the first
// minute (and for a minute after BoostSync), every 120 ticks after, every
// 300 in the late game; once every player has reported a tick's hash, a
// mismatch broadcasts DesyncDetected for that tick. A player that goes
// silent past the heartbeat timeout, is frozen, strikes out or leaves is
// removed at a tick RemovalLead ticks ahead, announced at once and in every
// frame until then, so every client removes it on the same tick.
//
// # Reconnection by snapshot donor (rejoin.go)
//
// With Config.Rejoin.Enabled, a player that goes silent or frozen, or
// whose connection the embedder reports lost (Disconnected), is away
// instead: Idle every tick, not waited for, not counted for sync checks
// or QoS. Rejoin starts its reconnection:
//
//	active ──lost──▶ away ──Rejoin──▶ rejoining ──CaughtUp──▶ active
//	                  │ 60 s from the loss ──▶ removed (timeout)
//	                  └ the 4th loss of a match ──▶ removed
//
//	rejoining: donor = best active player not tried (no strikes, fresh
//	           echo, lowest RTT); SnapshotRequest{k = next tick};
//	           frame k asks everyone for a hash; majority → SnapshotHash;
//	           chunks relayed as they come; verdict not ok, donor gone,
//	           donor's hash not the agreed one, or nothing in 10 s after
//	           tick k → next donor (3 at most, then removed)
//
// Observe runs the same transfer for an observer (an id no player has),
// which counts for nothing else; the embedder delays what it is sent.
// The relay never runs the simulation and holds no snapshot.
package relay
