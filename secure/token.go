package secure

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"
)

// TokenSize is the size of a connect token.
const TokenSize = tokenBody + sigSize // 184

// RoomIDSize is the size of the room a token admits to (see RoomID).
const RoomIDSize = sha256.Size

const tokenBody = KeySize + KeySize + RoomIDSize + 8 + 8 + 8 // server, player key, room, player id, expiry, nonce

// tokenContext prefixes the signed bytes so a token signature can never be
// mistaken for any other signature made with the matchmaker's key.
const tokenContext = "tickwire connect token v2\x00"

// Token is a connect token: a matchmaker's statement that a player may join
// one room (or match) of one server until an expiry. The server checks it
// before admitting the player; it is how ranked or tournament rooms admit
// only matched players.
//
// Wire layout (184 bytes, integers big-endian):
//
//	  0  server identity key (32)     the Ed25519 key of the server it admits to
//	 32  player identity key (32)     the player's Ed25519 key; the player must
//	                                  sign the handshake with it
//	 64  room (32)                    RoomID of the room or match it admits to
//	 96  player id (8)
//	104  expiry (8)                   Unix seconds; refused from this instant on
//	112  nonce (8)                    makes every token unique
//	120  signature (64)               Ed25519 by the matchmaker over
//	                                  "tickwire connect token v2\x00" || bytes 0-119
//
// Version 1 (152 bytes) had no room: a token admitted its player to any
// room of the server.
type Token struct {
	Server   ed25519.PublicKey
	Player   ed25519.PublicKey
	Room     [RoomIDSize]byte // RoomID(name) of the room it admits to
	PlayerID uint64
	Expires  time.Time
	Nonce    [8]byte
}

// RoomID is how a token names a room: the SHA-256 of the room's name
// (the name a client's JoinRoom carries).
func RoomID(name string) [RoomIDSize]byte { return sha256.Sum256([]byte(name)) }

// ForRoom reports whether t admits to the room called name.
func (t *Token) ForRoom(name string) bool { return t.Room == RoomID(name) }

// IssueToken returns t signed with the matchmaker's key.
func IssueToken(matchmaker ed25519.PrivateKey, t Token) ([]byte, error) {
	if len(matchmaker) != ed25519.PrivateKeySize || len(t.Server) != KeySize || len(t.Player) != KeySize {
		return nil, fmt.Errorf("%w: token keys", ErrConfig)
	}
	b := make([]byte, 0, TokenSize)
	b = append(b, t.Server...)
	b = append(b, t.Player...)
	b = append(b, t.Room[:]...)
	b = binary.BigEndian.AppendUint64(b, t.PlayerID)
	b = binary.BigEndian.AppendUint64(b, uint64(t.Expires.Unix()))
	b = append(b, t.Nonce[:]...)
	return append(b, ed25519.Sign(matchmaker, tokenSigned(b))...), nil
}

func tokenSigned(body []byte) []byte {
	return append([]byte(tokenContext), body[:tokenBody]...)
}

// VerifyToken checks a connect token: the matchmaker's signature, that it
// names server, and that it has not expired at now, in that order. It
// returns ErrTokenSignature, ErrTokenWrongServer or ErrTokenExpired.
func VerifyToken(b []byte, matchmaker, server ed25519.PublicKey, now time.Time) (Token, error) {
	if len(b) != TokenSize || len(matchmaker) != ed25519.PublicKeySize ||
		!ed25519.Verify(matchmaker, tokenSigned(b), b[tokenBody:]) {
		return Token{}, ErrTokenSignature
	}
	t := Token{
		Server:   ed25519.PublicKey(clone(b[0:32])),
		Player:   ed25519.PublicKey(clone(b[32:64])),
		PlayerID: binary.BigEndian.Uint64(b[96:]),
		Expires:  time.Unix(int64(binary.BigEndian.Uint64(b[104:])), 0),
	}
	copy(t.Room[:], b[64:96])
	copy(t.Nonce[:], b[112:120])
	if !t.Server.Equal(server) {
		return Token{}, ErrTokenWrongServer
	}
	if !now.Before(t.Expires) {
		return Token{}, ErrTokenExpired
	}
	return t, nil
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }
