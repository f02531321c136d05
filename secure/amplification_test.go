package secure

import (
	"bytes"
	"math/rand/v2"
	"net/netip"
	"testing"
)

// Before an address is validated the server sends at most as many bytes
// as it received: exactly ChallengeSize per HelloSize for hellos,
// RefuseSize for a hello of another version, and
// nothing at all for garbage, truncated, padded, wrongly sized or unknown
// packets, or Initiates with forged cookies.
func TestAmplificationRatio(t *testing.T) {
	hello := newClient(t, ClientConfig{}, 1).Packet()
	badVersion := bytes.Clone(hello)
	badVersion[1] = 2
	badPadding := bytes.Clone(hello)
	badPadding[HelloSize-1] = 1
	rng := rand.New(rand.NewPCG(5, 6))
	garbage := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	forgedInitiate := appendInitiate(nil, &initiateMsg{})

	cases := []struct {
		name    string
		packets [][]byte
		in, out int
	}{
		{"hellos", [][]byte{hello, hello, hello}, 3 * 64, 3 * 34},
		{"garbage", [][]byte{garbage(1), garbage(64), garbage(1200), garbage(1500), {}}, 1 + 64 + 1200 + 1500, 0},
		{"truncated hellos", truncations(hello), 63 * 64 / 2, 0},
		{"oversized hello", [][]byte{append(bytes.Clone(hello), 0)}, 65, 0},
		{"other version", [][]byte{badVersion}, 64, RefuseSize},
		{"non-zero padding", [][]byte{badPadding}, 64, 0},
		{"server packets", [][]byte{appendChallenge(nil, new([16]byte), new([16]byte)), appendRefuse(nil, new([16]byte), RefuseServerFull)}, 34 + 19, 0},
		{"transport datagram", [][]byte{append([]byte{1}, make([]byte, 23)...)}, 24, 0},
		{"forged initiate", [][]byte{forgedInitiate}, InitiateSize, 0},
		{"truncated initiates", truncations(forgedInitiate), (InitiateSize - 1) * InitiateSize / 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, ServerConfig{})
			for i, p := range tc.packets {
				from := netip.AddrPortFrom(clientAddr.Addr(), uint16(1000+i))
				if Classify(p) == KindInitiate {
					if _, reply, err := s.Accept(p, from, t0); err == nil || reply != nil {
						t.Fatalf("forged initiate accepted: %v", err)
					}
				} else {
					reply, ok := s.HandleUnvalidated(p, from, t0)
					if ok != (len(reply) > 0) || len(reply) > len(p) {
						t.Fatalf("packet %d (%d bytes): reply %d bytes", i, len(p), len(reply))
					}
				}
			}
			st := s.Stats()
			if st.UnvalidatedIn != uint64(tc.in) || st.UnvalidatedOut != uint64(tc.out) {
				t.Fatalf("in %d out %d, want in %d out %d", st.UnvalidatedIn, st.UnvalidatedOut, tc.in, tc.out)
			}
			if st.UnvalidatedOut > st.UnvalidatedIn {
				t.Fatalf("amplification %d/%d", st.UnvalidatedOut, st.UnvalidatedIn)
			}
			if st.Admission.TrackedIPs != 0 || st.Admission.Open != 0 {
				t.Fatalf("state created before validation: %+v", st.Admission)
			}
		})
	}
}

// truncations returns every proper prefix of p.
func truncations(p []byte) [][]byte {
	var out [][]byte
	for n := range len(p) {
		out = append(out, p[:n])
	}
	return out
}

// A full server answers hellos with a Refuse, still smaller than the hello.
func TestFullServerRefusesHelloStatelessly(t *testing.T) {
	s := newServer(t, ServerConfig{Limits: Limits{MaxConnections: 1}})
	handshake(t, newClient(t, ClientConfig{}, 1), s, clientAddr, t0)
	c := newClient(t, ClientConfig{}, 2)
	reply, ok := s.HandleUnvalidated(c.Packet(), netipWithPort(clientAddr, 2), t0)
	if !ok || len(reply) != RefuseSize || len(reply) > HelloSize {
		t.Fatalf("reply %d bytes", len(reply))
	}
	_, err := c.Handle(reply)
	if !errorsIs(err, ErrRefused, ErrServerFull) {
		t.Fatalf("client got %v", err)
	}
}

// 100,000 hellos from spoofed sources (many addresses and ports) and as
// many Initiates with forged cookies leave the server without per-source
// state; a real client then connects and exchanges data.
func TestSpoofedHelloFloodLeavesNoState(t *testing.T) {
	s := newServer(t, ServerConfig{})
	const n = 100_000
	for i := range n {
		from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), uint16(1024+i%60000))
		c := &ClientHandshake{}
		c.nonce[0], c.nonce[1], c.nonce[2] = byte(i), byte(i>>8), byte(i>>16)
		hello := appendHello(nil, &c.nonce)
		if _, ok := s.HandleUnvalidated(hello, from, t0); !ok {
			t.Fatal("hello not answered")
		}
		forged := appendInitiate(nil, &initiateMsg{nonce: c.nonce})
		if _, _, err := s.Accept(forged, from, t0); !errorsIs(err, ErrBadCookie) {
			t.Fatalf("forged cookie: %v", err)
		}
		if i%10_000 == 0 {
			if st := s.Stats(); st.Admission.TrackedIPs != 0 || st.Admission.Open != 0 || st.Accepted != 0 {
				t.Fatalf("after %d spoofed hellos: %+v", i, st)
			}
		}
	}
	st := s.Stats()
	if st.Hellos != n || st.Challenges != n || st.BadCookies != n ||
		st.Admission.TrackedIPs != 0 || st.Admission.Open != 0 || st.Accepted != 0 {
		t.Fatalf("after flood: %+v", st)
	}
	if st.UnvalidatedIn != n*(HelloSize+InitiateSize) || st.UnvalidatedOut != n*ChallengeSize {
		t.Fatalf("bytes out %d in %d", st.UnvalidatedOut, st.UnvalidatedIn)
	}

	c := newClient(t, ClientConfig{ServerKey: s.PublicKey()}, 42)
	a := handshake(t, c, s, clientAddr, t0)
	open := func(dst []byte, seq uint32, h, p []byte) ([]byte, error) { return a.Open(dst, seq, h, p, t0) }
	exchange(t, c.Session().Seal, open, 0, "still serving")
	exchange(t, a.Seal, c.Session().Open, 0, "and answering")
	if st := s.Stats(); st.Admission.TrackedIPs != 1 || st.Admission.Open != 1 {
		t.Fatalf("after the real client: %+v", st.Admission)
	}
}
