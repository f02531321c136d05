// Package hostile is a hostile state-sync client, for the adversary tests
// of package statesync and the hostile bots of tickwire's demo: it plays
// every frame with an honest statesync.Client and lies on top, the best
// liar the tests know how to write. Every forgery is plausible: the right
// sizes, the right headers, entity encodings the game accepts, valid zstd,
// hashes that collide with nothing; never zeros.
//
// A Liar sits between a Client and its connection: Rewrite replaces what
// the client sends, OnTick adds what a hostile client sends on its own
// when a Tick arrives.
package hostile

import (
	"bytes"
	"iter"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/tickwire/tickwire/statesync"
	"github.com/tickwire/tickwire/statesync/msg"
)

// Tactic is one thing a hostile client does on top of playing honestly.
type Tactic uint16

// Tactics.
const (
	// ForgePart: the partitions it sends (assigned or asked) carry its
	// true header over forged entities of the right size.
	ForgePart Tactic = 1 << iota
	// HugeParts: at every Tick, partitions claiming 65,535 parts.
	HugeParts
	// Early: at every Tick, before any primary can answer, a forged
	// partition for every partition of the frame.
	Early
	// Flood: at every Tick, 64 partitions of the frame.
	Flood
	// Bomb: every other frame, its assigned partitions as a small zstd
	// frame inflating to 4 MiB, without a declared size.
	Bomb
	// ForgeLeaves: as a recovery source, Merkle leaves and bucket
	// entities of a forged state, consistent with each other.
	ForgeLeaves
	// ForgeState: as a late-join source, a forged full-state part.
	ForgeState
	// VoteLow: every 25th frame, a state hash of 0 (the tie-winner of a
	// vote that breaks ties by the smaller hash).
	VoteLow
	// Reset: at every Tick, a HELLO and a full-state SyncRequest.
	Reset
	// All is every tactic.
	All Tactic = 1<<iota - 1
)

// Liar is one hostile client's lies. The zero Liar lies about nothing.
type Liar struct {
	Tactics Tactic
	// Engine and Client are the hostile client's own honest game and
	// core, whose state it forges.
	Engine statesync.Engine
	Client *statesync.Client
}

// Rewrite returns what the hostile client sends instead of m.
func (l *Liar) Rewrite(m msg.Message) msg.Message {
	t := l.Tactics
	switch m := m.(type) {
	case *msg.PartitionData:
		if t&Bomb != 0 && m.Frame%2 == 0 {
			f := *m
			f.Encoding, f.Data = msg.Zstd, bombData()
			return &f
		}
		if t&ForgePart != 0 {
			return forgePartition(m)
		}
	case *msg.StateHash:
		if t&VoteLow != 0 && m.Frame%25 == 0 {
			return &msg.StateHash{Frame: m.Frame, Hash: 0}
		}
	case *msg.MerkleLeaves:
		if t&ForgeLeaves != 0 && l.Client.Frame() == m.Frame {
			leaves, _ := statesync.Leaves(nil, forgedView{l.Engine}, nil)
			return &msg.MerkleLeaves{Frame: m.Frame, Leaves: leaves}
		}
	case *msg.EntityData:
		if m.Kind == msg.EntitiesBuckets && t&ForgeLeaves != 0 || m.Kind == msg.EntitiesFullPart && t&ForgeState != 0 {
			f := *m
			f.Encoding, f.Data = comp.Encode(nil, forgeSet(decoded(m.Encoding, m.Data)))
			return &f
		}
	}
	return m
}

// OnTick returns what the hostile client sends on its own when tick
// arrives: to be sent at once, ahead of any honest answer.
func (l *Liar) OnTick(tick *msg.Tick) []msg.Message {
	var out []msg.Message
	t := l.Tactics
	parts := max(tick.Parts, 1)
	part := func(i int, claim uint16) *msg.PartitionData {
		pd := &msg.PartitionData{Frame: tick.Frame, ListVersion: tick.ClientListVersion, Part: uint16(i) % claim, Parts: claim}
		d := statesync.Delta{Frame: tick.Frame, BaseHash: l.Client.Hash()}
		d.Created = statesync.AppendEntity(nil, uint32(pd.Part)+uint32(claim)*uint32(i+1), make([]byte, 17))
		pd.Data = statesync.AppendDelta(nil, &d)
		return forgePartition(pd)
	}
	if t&Early != 0 {
		for i := range int(parts) {
			out = append(out, part(i, parts))
		}
	}
	if t&HugeParts != 0 {
		for i := range 4 {
			out = append(out, part(int(parts)+i, 65535))
		}
	}
	if t&Flood != 0 {
		for i := range 64 {
			out = append(out, part(i, parts))
		}
	}
	if t&Reset != 0 {
		out = append(out, &msg.Hello{}, &msg.SyncRequest{What: msg.SyncFullState | msg.SyncClientList})
	}
	return out
}

// forgeData changes one byte in the middle of an entity's encoding (byte
// 0 of a short one): the same size, still an encoding the game accepts
// for the games here (a health or a random-generator byte), and not the
// truth.
func forgeData(data []byte) []byte {
	out := slices.Clone(data)
	if len(out) > 12 {
		out[12] ^= 0x5A
	} else if len(out) > 0 {
		out[0] ^= 0x5A
	}
	return out
}

func forgeSet(set []byte) []byte {
	var out []byte
	rd := statesync.ReadEntities(set)
	for e, ok := rd.Next(); ok; e, ok = rd.Next() {
		out = statesync.AppendEntity(out, e.ID, forgeData(e.Data))
	}
	return out
}

// forgedView is a hostile client's state as it lies about it.
type forgedView struct{ statesync.Engine }

func (v forgedView) Entities() iter.Seq2[uint32, []byte] {
	return func(yield func(uint32, []byte) bool) {
		for id, data := range v.Engine.Entities() {
			if !yield(id, forgeData(data)) {
				return
			}
		}
	}
}

var comp = statesync.NewCompressor()

func decoded(enc msg.Encoding, data []byte) []byte {
	b, err := comp.Decode(nil, enc, data)
	if err != nil {
		return nil
	}
	return slices.Clone(b)
}

// forgePartition keeps a partition's header and forges its entities. An
// empty partition gets one forged entity of the partition's own.
func forgePartition(pd *msg.PartitionData) *msg.PartitionData {
	d, err := statesync.ParseDelta(decoded(pd.Encoding, pd.Data))
	if err != nil {
		return pd
	}
	if len(d.Created) == 0 {
		id := uint32(pd.Part) + 1000*uint32(pd.Parts)
		d.Created = statesync.AppendEntity(nil, id, make([]byte, 17))
	}
	d.Created = forgeSet(d.Created)
	f := *pd
	f.Encoding, f.Data = comp.Encode(nil, statesync.AppendDelta(nil, &d))
	return &f
}

// bombData is a zstd frame of 4 MiB of zeros written by a stream encoder,
// which declares no content size: 4 MiB of allocation per look for a
// server that decompresses without a bound.
var bombData = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	w, _ := zstd.NewWriter(&b, zstd.WithEncoderConcurrency(1))
	_, _ = w.Write(make([]byte, 4<<20))
	_ = w.Close()
	return b.Bytes()
})
