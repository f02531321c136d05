package secure

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"net/netip"
	"time"
)

// DefaultCookiePeriod is the length of a cookie time bucket. A cookie is
// accepted in the bucket it was minted in and the next one, so it lives
// between one and two periods.
const DefaultCookiePeriod = 10 * time.Second

// CookieJar mints and checks the stateless address-validation cookies of
// the Challenge. A cookie is HMAC-SHA256, truncated to CookieSize bytes,
// over a time bucket, the client's address and port and the client's
// nonce, keyed with a server secret. The jar keeps the current and the
// previous secret so Rotate does not invalidate cookies in flight.
//
// Verifying needs no per-client state: the server allocates nothing for a
// client until it echoes a valid cookie, which proves it receives packets
// at the address it claims.
//
// A CookieJar is not safe for concurrent use (the Server serializes it).
type CookieJar struct {
	period  time.Duration
	macs    [2]hash.Hash // HMAC-SHA256 keyed with the current and previous secret
	rotated bool         // previous is set
	sum     [sha256.Size]byte
}

// NewCookieJar returns a jar keyed with secret. A period of 0 means
// DefaultCookiePeriod.
func NewCookieJar(secret [32]byte, period time.Duration) *CookieJar {
	if period <= 0 {
		period = DefaultCookiePeriod
	}
	j := &CookieJar{period: period}
	j.macs[0] = hmac.New(sha256.New, secret[:])
	return j
}

// Rotate makes secret the current key; cookies minted under the previous
// key stay valid until their bucket expires. Call it periodically (say
// hourly) with fresh random bytes.
func (j *CookieJar) Rotate(secret [32]byte) {
	j.macs[1] = j.macs[0]
	j.macs[0] = hmac.New(sha256.New, secret[:])
	j.rotated = true
}

func (j *CookieJar) bucket(now time.Time) uint64 {
	return uint64(now.UnixNano() / int64(j.period))
}

func (j *CookieJar) mac(h hash.Hash, bucket uint64, from netip.AddrPort, nonce *[NonceSize]byte) (c [CookieSize]byte) {
	var msg [8 + 16 + 2 + NonceSize]byte
	binary.BigEndian.PutUint64(msg[0:], bucket)
	a := from.Addr().As16()
	copy(msg[8:], a[:])
	binary.BigEndian.PutUint16(msg[24:], from.Port())
	copy(msg[26:], nonce[:])
	h.Reset()
	h.Write(msg[:])
	copy(c[:], h.Sum(j.sum[:0]))
	return c
}

// Make returns the cookie for a client at from with the given nonce.
func (j *CookieJar) Make(from netip.AddrPort, nonce *[NonceSize]byte, now time.Time) [CookieSize]byte {
	return j.mac(j.macs[0], j.bucket(now), from, nonce)
}

// Valid reports whether cookie was minted by this jar for from and nonce in
// the current or the previous time bucket.
func (j *CookieJar) Valid(from netip.AddrPort, nonce *[NonceSize]byte, cookie *[CookieSize]byte, now time.Time) bool {
	b := j.bucket(now)
	keys := 1
	if j.rotated {
		keys = 2
	}
	for k := range keys {
		for _, bucket := range [2]uint64{b, b - 1} {
			want := j.mac(j.macs[k], bucket, from, nonce)
			if hmac.Equal(want[:], cookie[:]) {
				return true
			}
		}
	}
	return false
}
