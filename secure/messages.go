package secure

import (
	"crypto/ed25519"
	"errors"
	"fmt"
)

// Version is the handshake protocol version, the second byte of every
// handshake packet.
const Version = 1

// Handshake packet types, the first byte of every handshake packet. The top
// three bits are set so a handshake packet never looks like a transport
// datagram (whose first byte is the transport version, 1).
const (
	typeHello       = 0xE1
	typeChallenge   = 0xE2
	typeInitiate    = 0xE3
	typeServerHello = 0xE4
	typeFinish      = 0xE5
	typeRefuse      = 0xE6
)

// Field sizes.
const (
	// NonceSize is the size of the client's per-attempt random nonce.
	NonceSize = 16
	// CookieSize is the size of the address-validation cookie.
	CookieSize = 16
	// KeySize is the size of X25519 and Ed25519 public keys.
	KeySize = 32

	headSize           = 2 + NonceSize // type, version, nonce
	sigSize            = ed25519.SignatureSize
	tagSize            = 16
	sealedIdentitySize = KeySize + sigSize + tagSize // identity key and signature under AEAD
	serverHelloClear   = headSize + KeySize          // part of ServerHello sent in clear
)

// Exact handshake packet sizes. A packet of any other size is dropped.
// Every answer the server gives before the client's address is validated
// (Challenge, Refuse) is smaller than the Hello it answers, and every answer
// after validation (ServerHello, Refuse) is smaller than the Initiate it
// answers, so the server never sends more bytes than it received.
const (
	HelloSize       = 64                                              // Hello, zero-padded
	ChallengeSize   = headSize + CookieSize                           // 34
	InitiateSize    = headSize + CookieSize + KeySize + 1 + TokenSize // 251
	ServerHelloSize = serverHelloClear + sealedIdentitySize           // 162
	FinishSize      = headSize + sealedIdentitySize                   // 130
	RefuseSize      = headSize + 1                                    // 19
)

// Kind is the kind of a handshake packet.
type Kind uint8

// Handshake packet kinds.
const (
	KindNone        Kind = iota // not a handshake packet of a known type, version and size
	KindHello                   // client → server, first packet
	KindChallenge               // server → client, cookie
	KindInitiate                // client → server, cookie echo, ephemeral key, token
	KindServerHello             // server → client, ephemeral key, sealed identity
	KindFinish                  // client → server, sealed identity
	KindRefuse                  // server → client, refusal reason
)

var kindNames = [...]string{"none", "hello", "challenge", "initiate", "server-hello", "finish", "refuse"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// kindInfo maps a kind to its type byte and exact size.
var kindInfo = [...]struct {
	typ  byte
	size int
}{
	KindHello:       {typeHello, HelloSize},
	KindChallenge:   {typeChallenge, ChallengeSize},
	KindInitiate:    {typeInitiate, InitiateSize},
	KindServerHello: {typeServerHello, ServerHelloSize},
	KindFinish:      {typeFinish, FinishSize},
	KindRefuse:      {typeRefuse, RefuseSize},
}

// Classify returns the kind of a handshake packet judged by its type byte,
// version and exact size, or KindNone. It lets a driver tell handshake
// packets from transport datagrams and route them; the parsers check the
// rest. A Hello or a Refuse of any version is classified: every version
// keeps their head and size, so peers that speak different versions can
// tell each other so (a Hello of another version is refused with
// RefuseVersion).
func Classify(pkt []byte) Kind {
	if len(pkt) < 2 || pkt[1] == 0 {
		return KindNone
	}
	for k := KindHello; k <= KindRefuse; k++ {
		if pkt[0] == kindInfo[k].typ && len(pkt) == kindInfo[k].size && (pkt[1] == Version || k == KindHello || k == KindRefuse) {
			return k
		}
	}
	return KindNone
}

// check verifies that pkt is a packet of kind k and of this version, and
// returns its nonce. A Hello or Refuse of another version is an error
// wrapping ErrVersion, with the nonce.
func check(pkt []byte, k Kind) (nonce [NonceSize]byte, err error) {
	if Classify(pkt) != k {
		return nonce, fmt.Errorf("%w: not a %v packet (%d bytes)", ErrMalformed, k, len(pkt))
	}
	copy(nonce[:], pkt[2:headSize])
	if pkt[1] != Version {
		return nonce, fmt.Errorf("%w: %v of version %d, this side speaks %d", ErrVersion, k, pkt[1], Version)
	}
	return nonce, nil
}

func appendHead(b []byte, k Kind, nonce *[NonceSize]byte) []byte {
	b = append(b, kindInfo[k].typ, Version)
	return append(b, nonce[:]...)
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// appendHello appends a Hello: head and zero padding.
func appendHello(b []byte, nonce *[NonceSize]byte) []byte {
	b = appendHead(b, KindHello, nonce)
	return append(b, make([]byte, HelloSize-headSize)...)
}

func parseHello(pkt []byte) (nonce [NonceSize]byte, err error) {
	if nonce, err = check(pkt, KindHello); err != nil {
		return nonce, err
	}
	if !allZero(pkt[headSize:]) {
		return nonce, fmt.Errorf("%w: hello padding not zero", ErrMalformed)
	}
	return nonce, nil
}

// appendChallenge appends a Challenge: head and cookie.
func appendChallenge(b []byte, nonce *[NonceSize]byte, cookie *[CookieSize]byte) []byte {
	b = appendHead(b, KindChallenge, nonce)
	return append(b, cookie[:]...)
}

func parseChallenge(pkt []byte) (nonce [NonceSize]byte, cookie [CookieSize]byte, err error) {
	if nonce, err = check(pkt, KindChallenge); err != nil {
		return nonce, cookie, err
	}
	copy(cookie[:], pkt[headSize:])
	return nonce, cookie, nil
}

// initiateMsg is the client's second packet.
type initiateMsg struct {
	nonce  [NonceSize]byte
	cookie [CookieSize]byte
	eph    [KeySize]byte // client X25519 ephemeral public key
	token  []byte        // connect token (TokenSize bytes) or nil
}

const flagToken = 1 << 0

func appendInitiate(b []byte, m *initiateMsg) []byte {
	b = appendHead(b, KindInitiate, &m.nonce)
	b = append(b, m.cookie[:]...)
	b = append(b, m.eph[:]...)
	if m.token == nil {
		b = append(b, 0)
		return append(b, make([]byte, TokenSize)...)
	}
	b = append(b, flagToken)
	return append(b, m.token...)
}

func parseInitiate(pkt []byte) (m initiateMsg, err error) {
	if m.nonce, err = check(pkt, KindInitiate); err != nil {
		return m, err
	}
	p := pkt[headSize:]
	p = p[copy(m.cookie[:], p):]
	p = p[copy(m.eph[:], p):]
	flags, token := p[0], p[1:]
	switch flags {
	case 0:
		if !allZero(token) {
			return m, fmt.Errorf("%w: token bytes without token flag", ErrMalformed)
		}
	case flagToken:
		m.token = token
	default:
		return m, fmt.Errorf("%w: unknown initiate flags %#x", ErrMalformed, flags)
	}
	return m, nil
}

// appendServerHello appends the clear part of a ServerHello; the caller
// appends the sealed identity.
func appendServerHelloClear(b []byte, nonce *[NonceSize]byte, eph []byte) []byte {
	b = appendHead(b, KindServerHello, nonce)
	return append(b, eph...)
}

func parseServerHello(pkt []byte) (nonce [NonceSize]byte, eph [KeySize]byte, sealed []byte, err error) {
	if nonce, err = check(pkt, KindServerHello); err != nil {
		return nonce, eph, nil, err
	}
	copy(eph[:], pkt[headSize:])
	return nonce, eph, pkt[serverHelloClear:], nil
}

func parseFinish(pkt []byte) (nonce [NonceSize]byte, sealed []byte, err error) {
	if nonce, err = check(pkt, KindFinish); err != nil {
		return nonce, nil, err
	}
	return nonce, pkt[headSize:], nil
}

func appendRefuse(b []byte, nonce *[NonceSize]byte, r RefusalReason) []byte {
	b = appendHead(b, KindRefuse, nonce)
	return append(b, byte(r))
}

func parseRefuse(pkt []byte) (nonce [NonceSize]byte, r RefusalReason, err error) {
	if nonce, err = check(pkt, KindRefuse); err != nil {
		return nonce, 0, err
	}
	r = RefusalReason(pkt[headSize])
	if r.Err() == nil {
		return nonce, 0, fmt.Errorf("%w: unknown refusal reason %d", ErrMalformed, r)
	}
	return nonce, r, nil
}

// RefusalReason is why a server refused a connection; it travels in a
// Refuse packet.
type RefusalReason uint8

// Refusal reasons.
const (
	RefuseServerFull       RefusalReason = iota + 1 // ErrServerFull
	RefuseTooManyFromIP                             // ErrTooManyFromIP
	RefuseRateLimited                               // ErrRateLimited
	RefuseTokenRequired                             // ErrTokenRequired
	RefuseTokenSignature                            // ErrTokenSignature
	RefuseTokenWrongServer                          // ErrTokenWrongServer
	RefuseTokenExpired                              // ErrTokenExpired
	RefuseVersion                                   // ErrVersion: the Hello's version is not the server's
	refusalReasons                                  // number of reasons + 1
)

var refusalErrs = [refusalReasons]error{
	RefuseServerFull:       ErrServerFull,
	RefuseTooManyFromIP:    ErrTooManyFromIP,
	RefuseRateLimited:      ErrRateLimited,
	RefuseTokenRequired:    ErrTokenRequired,
	RefuseTokenSignature:   ErrTokenSignature,
	RefuseTokenWrongServer: ErrTokenWrongServer,
	RefuseTokenExpired:     ErrTokenExpired,
	RefuseVersion:          ErrVersion,
}

// Err returns the reason's sentinel error, or nil for an unknown reason.
func (r RefusalReason) Err() error {
	if r < refusalReasons {
		return refusalErrs[r]
	}
	return nil
}

func (r RefusalReason) String() string {
	if err := r.Err(); err != nil {
		return err.Error()
	}
	return fmt.Sprintf("refusal(%d)", uint8(r))
}

// reasonFor maps a sentinel error to its refusal reason (0 if none).
func reasonFor(err error) RefusalReason {
	for r := RefuseServerFull; r < refusalReasons; r++ {
		if errors.Is(err, refusalErrs[r]) {
			return r
		}
	}
	return 0
}
