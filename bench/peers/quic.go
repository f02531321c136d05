package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"net"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
)

// quicPeer adapts github.com/quic-go/quic-go: each reliable lane is its own
// bidirectional stream (length-prefixed frames), so lanes never block one
// another, and the Unreliable lane uses RFC 9221 datagrams. Path MTU
// discovery is off and packets are the workload's MTU (at least QUIC's
// 1200), so packet sizes match the other peers.
type quicPeer struct{}

const quicALPN = "tickwire-bench"

func (quicPeer) config(o Options) *quic.Config {
	return &quic.Config{
		EnableDatagrams:         true,
		KeepAlivePeriod:         o.Keepalive,
		MaxIdleTimeout:          max(30*time.Second, 3*o.Keepalive),
		DisablePathMTUDiscovery: true,
		InitialPacketSize:       uint16(max(o.MTU, 1200)),
	}
}

func (p quicPeer) Listen(ctx context.Context, pc net.PacketConn, o Options) (Listener, error) {
	cert, err := selfSignedCert()
	if err != nil {
		pc.Close()
		return nil, err
	}
	tr := &quic.Transport{Conn: pc}
	ln, err := tr.Listen(&tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{quicALPN}}, p.config(o))
	if err != nil {
		pc.Close()
		return nil, err
	}
	return &quicListener{ln: ln, tr: tr, pc: pc}, nil
}

func (p quicPeer) Dial(ctx context.Context, pc net.PacketConn, remote net.Addr, o Options) (Conn, error) {
	tr := &quic.Transport{Conn: pc}
	c, err := tr.Dial(ctx, remote, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{quicALPN}}, p.config(o))
	if err != nil {
		tr.Close()
		pc.Close()
		return nil, err
	}
	return newQUICConn(c, func() { tr.Close(); pc.Close() }), nil
}

// selfSignedCert makes a throwaway certificate for the benchmark server.
func selfSignedCert() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(24 * time.Hour), DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

type quicListener struct {
	ln *quic.Listener
	tr *quic.Transport
	pc net.PacketConn
}

func (l *quicListener) Accept(ctx context.Context) (Conn, error) {
	c, err := l.ln.Accept(ctx)
	if err != nil {
		return nil, err
	}
	return newQUICConn(c, func() {}), nil
}

func (l *quicListener) Close() error {
	err := l.ln.Close()
	l.tr.Close()
	l.pc.Close()
	return err
}

type quicConn struct {
	c       *quic.Conn
	release func() // closes the client's transport and socket

	mu      sync.Mutex
	streams [numLanes]*quic.Stream

	in   chan []byte
	ctx  context.Context // ends when the connection closes
	once sync.Once
}

func newQUICConn(c *quic.Conn, release func()) *quicConn {
	q := &quicConn{c: c, release: release, in: make(chan []byte, 4096), ctx: c.Context()}
	go q.acceptStreams()
	go q.receiveDatagrams()
	return q
}

func (q *quicConn) acceptStreams() {
	for {
		s, err := q.c.AcceptStream(q.ctx)
		if err != nil {
			return
		}
		go q.readStream(s)
	}
}

func (q *quicConn) readStream(s *quic.Stream) {
	r := bufio.NewReaderSize(s, 64<<10)
	for {
		msg, err := readFrame(r)
		if err != nil {
			return
		}
		select {
		case q.in <- msg:
		case <-q.ctx.Done():
			return
		}
	}
}

func (q *quicConn) receiveDatagrams() {
	for {
		msg, err := q.c.ReceiveDatagram(q.ctx)
		if err != nil {
			return
		}
		select {
		case q.in <- msg:
		default: // unreliable: drop when the reader lags
		}
	}
}

// stream returns the lane's stream, opening it on first use.
func (q *quicConn) stream(lane Lane) (*quic.Stream, error) {
	if s := q.streams[lane]; s != nil {
		return s, nil
	}
	s, err := q.c.OpenStreamSync(q.ctx)
	if err != nil {
		return nil, err
	}
	q.streams[lane] = s
	return s, nil
}

func (q *quicConn) Send(lane Lane, msg []byte) error {
	if lane == Unreliable {
		return q.c.SendDatagram(msg)
	}
	// The lock guards only the stream table: a Write blocked by flow
	// control must not hold up the other lanes.
	q.mu.Lock()
	s, err := q.stream(lane)
	q.mu.Unlock()
	if err != nil {
		return err
	}
	_, err = s.Write(appendFrame(nil, msg))
	return err
}

func (q *quicConn) Receive(ctx context.Context) ([]byte, error) {
	select {
	case m := <-q.in:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-q.ctx.Done():
		return nil, context.Cause(q.ctx)
	}
}

func (q *quicConn) Close() error {
	var err error
	q.once.Do(func() {
		err = q.c.CloseWithError(0, "")
		q.release()
	})
	return err
}
