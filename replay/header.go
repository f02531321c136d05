package replay

import (
	"crypto/ed25519"
	"encoding/binary"
	"fmt"
	"slices"
)

// Magic opens every replay file; Version is the newest format version.
const (
	Magic   = "TWRP"
	Version = 1
)

// Limits of a header: what a reader accepts.
const (
	MaxPlayers    = 1024 // players listed in a header
	MaxNameLength = 255  // bytes of a model, game or room name
)

// Header describes the match a replay records. It is written once, at
// the start of the file, and never changes.
type Header struct {
	// Model is the network model that played the match ("lockstep",
	// "fogauth", "predict", "statesync"); Game the game ("rts": the
	// reference game tickwire's bots play; "" unknown).
	Model, Game string
	// Room is the room the match was played in.
	Room string
	// StartedUnixUs is the wall-clock start of the match, microseconds
	// since 1970.
	StartedUnixUs int64
	// Seed is the game seed: the agreed seed of a lockstep match, the
	// server's secret seed of a fog-authoritative or prediction match.
	Seed uint64
	// MapSeed is the public seed the map was generated from where it is
	// not the game seed (a fog-authoritative match); 0 otherwise.
	MapSeed uint64
	// MapHash and RulesHash identify the map and the rules the game was
	// set up with (SHA-256, as the game defines them; zero if unknown).
	MapHash, RulesHash [32]byte
	// TickRate is the match's ticks per second.
	TickRate uint16
	// SignEvery is how many frames each signature of the chain covers.
	SignEvery uint16
	// RelayKey is the public key of the server that signed the file.
	RelayKey ed25519.PublicKey
	// Players are the match's seats.
	Players []Player
	// Qos is the timing profile the match was bounded by.
	Qos QosProfile
}

// Player is a seat of the match: its player id and, when it joined over
// the secure handshake, its Ed25519 identity.
type Player struct {
	ID  uint16
	Key ed25519.PublicKey // nil on a plaintext connection
}

// QosProfile is a match's timing bounds: the tick deadline and the
// shared run-ahead the relay may move between.
type QosProfile struct {
	DeadlineMinUs, DeadlineMaxUs uint32
	RunAheadMin, RunAheadMax     uint8
}

// appendHeader appends magic, version and the header block.
func appendHeader(b []byte, h *Header) []byte {
	b = append(b, Magic...)
	b = append(b, Version)
	var body []byte
	body = appendString(body, h.Model)
	body = appendString(body, h.Game)
	body = appendString(body, h.Room)
	body = binary.LittleEndian.AppendUint64(body, uint64(h.StartedUnixUs))
	body = binary.LittleEndian.AppendUint64(body, h.Seed)
	body = binary.LittleEndian.AppendUint64(body, h.MapSeed)
	body = append(body, h.MapHash[:]...)
	body = append(body, h.RulesHash[:]...)
	body = binary.LittleEndian.AppendUint16(body, h.TickRate)
	body = binary.LittleEndian.AppendUint16(body, h.SignEvery)
	body = append(body, h.RelayKey...)
	body = binary.AppendUvarint(body, uint64(len(h.Players)))
	for _, p := range h.Players {
		body = binary.LittleEndian.AppendUint16(body, p.ID)
		body = append(body, byte(len(p.Key)))
		body = append(body, p.Key...)
	}
	body = binary.LittleEndian.AppendUint32(body, h.Qos.DeadlineMinUs)
	body = binary.LittleEndian.AppendUint32(body, h.Qos.DeadlineMaxUs)
	body = append(body, h.Qos.RunAheadMin, h.Qos.RunAheadMax)
	b = binary.AppendUvarint(b, uint64(len(body)))
	return append(b, body...)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// checkHeader reports a header the writer must refuse.
func checkHeader(h *Header) error {
	switch {
	case len(h.Model) > MaxNameLength || len(h.Game) > MaxNameLength || len(h.Room) > MaxNameLength:
		return fmt.Errorf("replay: a model, game or room name has at most %d bytes", MaxNameLength)
	case len(h.Players) > MaxPlayers:
		return fmt.Errorf("replay: %d players, at most %d", len(h.Players), MaxPlayers)
	case h.SignEvery == 0:
		return fmt.Errorf("replay: SignEvery must be at least 1")
	}
	for _, p := range h.Players {
		if len(p.Key) != 0 && len(p.Key) != ed25519.PublicKeySize {
			return fmt.Errorf("replay: player %d's key has %d bytes", p.ID, len(p.Key))
		}
	}
	return nil
}

// parseHeader reads magic, version and header block from the start of
// b and returns the header and the bytes it took. A file too short for
// its header is ErrTruncated.
func parseHeader(b []byte) (Header, int, error) {
	var h Header
	if len(b) < len(Magic) {
		if string(b) == Magic[:len(b)] {
			return h, 0, fmt.Errorf("%w: in the magic", ErrTruncated)
		}
		return h, 0, ErrNotReplay
	}
	if string(b[:len(Magic)]) != Magic {
		return h, 0, ErrNotReplay
	}
	if len(b) == len(Magic) {
		return h, 0, fmt.Errorf("%w: before the version", ErrTruncated)
	}
	if v := b[len(Magic)]; v != Version {
		return h, 0, fmt.Errorf("%w: %d (this reader reads %d)", ErrVersion, v, Version)
	}
	off := len(Magic) + 1
	n, k := binary.Uvarint(b[off:])
	switch {
	case k == 0:
		return h, 0, fmt.Errorf("%w: in the header length", ErrTruncated)
	case k < 0:
		return h, 0, fmt.Errorf("%w: header length at byte %d", ErrCorrupt, off)
	}
	off += k
	if n > uint64(len(b)-off) {
		return h, 0, fmt.Errorf("%w: in the header", ErrTruncated)
	}
	d := dec{b: b[off : off+int(n)]}
	h.Model = string(d.take("model", d.count("model", 1)))
	h.Game = string(d.take("game", d.count("game", 1)))
	h.Room = string(d.take("room", d.count("room", 1)))
	h.StartedUnixUs = int64(d.u64("start"))
	h.Seed = d.u64("seed")
	h.MapSeed = d.u64("map seed")
	d.fixed("map hash", h.MapHash[:])
	d.fixed("rules hash", h.RulesHash[:])
	h.TickRate = d.u16("tick rate")
	h.SignEvery = d.u16("sign every")
	if k := d.take("relay key", ed25519.PublicKeySize); k != nil {
		h.RelayKey = ed25519.PublicKey(slices.Clone(k))
	}
	np := d.count("players", 3)
	if np > MaxPlayers {
		d.fail("players")
	}
	for range np {
		p := Player{ID: d.u16("player")}
		kl := int(d.u8("player key length"))
		if kl != 0 && kl != ed25519.PublicKeySize {
			d.fail("player key length")
		}
		if kl > 0 {
			p.Key = ed25519.PublicKey(slices.Clone(d.take("player key", kl)))
		}
		h.Players = append(h.Players, p)
	}
	h.Qos.DeadlineMinUs = d.u32("qos")
	h.Qos.DeadlineMaxUs = d.u32("qos")
	h.Qos.RunAheadMin = d.u8("qos")
	h.Qos.RunAheadMax = d.u8("qos")
	if err := d.done("header"); err != nil {
		return h, 0, err
	}
	if h.SignEvery == 0 {
		return h, 0, fmt.Errorf("%w: SignEvery is 0", ErrCorrupt)
	}
	return h, off + int(n), nil
}

// Players lists seats 1..len(keys) with their keys (nil: plaintext).
func Players(keys []ed25519.PublicKey) []Player {
	ps := make([]Player, len(keys))
	for i, k := range keys {
		ps[i] = Player{ID: uint16(i + 1), Key: k}
	}
	return ps
}
