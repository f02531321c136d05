package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickwire/tickwire/internal/redistest"
	"github.com/tickwire/tickwire/tracker"
)

// selfSigned writes a certificate for 127.0.0.1 made now, and returns the
// files and a pool that trusts it.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tracker test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	kb, _ := x509.MarshalECPrivateKey(key)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// startTracker runs `tickwire tracker` with args in this process until the
// test ends and waits for /readyz.
func startTracker(t *testing.T, base string, hc *http.Client, args ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runTracker(ctx, args, io.Discard, io.Discard) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("tracker: %v", err)
		}
	})
	waitFor(t, "the tracker at "+base+" is ready", func() bool {
		resp, err := hc.Get(base + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
}

func TestTrackerHTTPS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	addr := freeAddr(t, "tcp")
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 5 * time.Second}
	base := "https://" + addr
	startTracker(t, base, hc, "--listen", addr, "--cert", certFile, "--key", keyFile, "--verify-listings=false")
	c, err := tracker.NewClient(base)
	if err != nil {
		t.Fatal(err)
	}
	c.HTTP = hc
	ctx := context.Background()
	l := tracker.Listing{Host: "127.0.0.1:7777", Room: "r", Map: tracker.MapMeta{Name: "m", Seats: 2},
		Status: tracker.StatusWaiting, Engine: "tickwire", NetworkModel: "lockstep"}
	if _, err := c.Publish(ctx, l); err != nil {
		t.Fatal(err)
	}
	ls, err := c.Browse(ctx, tracker.Filter{NetworkModel: "lockstep"})
	if err != nil || len(ls) != 1 {
		t.Fatalf("browse = %v, %v", ls, err)
	}
}

// TestTrackersShareRedis: two tracker processes' worth of `tickwire
// tracker` on one Redis serve one directory.
func TestTrackersShareRedis(t *testing.T) {
	url := redistest.Start(t)
	hc := &http.Client{Timeout: 5 * time.Second}
	var cs []*tracker.Client
	for range 2 {
		addr := freeAddr(t, "tcp")
		startTracker(t, "http://"+addr, hc, "--listen", addr, "--store", url, "--verify-listings=false")
		c, _ := tracker.NewClient("http://" + addr)
		cs = append(cs, c)
	}
	ctx := context.Background()
	l := tracker.Listing{Host: "127.0.0.1:7777", Room: "r", Map: tracker.MapMeta{Name: "m", Seats: 2},
		Status: tracker.StatusWaiting, Engine: "tickwire", NetworkModel: "state_sync"}
	if _, err := cs[0].Publish(ctx, l); err != nil {
		t.Fatal(err)
	}
	code, err := cs[0].RegisterCode(ctx, tracker.CodeRequest{Host: "127.0.0.1:7777", Room: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if ls, err := cs[1].Browse(ctx, tracker.Filter{}); err != nil || len(ls) != 1 || ls[0].NetworkModel != "state_sync" {
		t.Fatalf("the second tracker browses %v, %v", ls, err)
	}
	if e, err := cs[1].ResolveCode(ctx, code.Code); err != nil || e.Room != "r" {
		t.Fatalf("the second tracker resolves %+v, %v", e, err)
	}
}

func TestTrackerUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"--rate", "ten"}, {"--ttl", "0s"}, {"--cert", "x"}, {"--store", "postgres://x"}, {"extra"}} {
		if code := run(context.Background(), append([]string{"tracker"}, args...), io.Discard, io.Discard); code != 2 {
			t.Errorf("tracker %v: exit %d, want 2", args, code)
		}
	}
}

// TestTrackerVerifiesListings: a tracker (verifying by default) accepts a
// listing once the server at its address proves the listing's key in a
// handshake, and refuses made-up listings: another key at a real server's
// address, no key, an address nothing answers at.
func TestTrackerVerifiesListings(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "relay.key")
	key, err := loadOrCreateKey(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	_, udp, _ := startServer(t, "serve", "--key", keyFile)
	addr := freeAddr(t, "tcp")
	hc := &http.Client{Timeout: 10 * time.Second}
	startTracker(t, "http://"+addr, hc, "--listen", addr)
	c, _ := tracker.NewClient("http://" + addr)
	ctx := context.Background()
	listing := func(host, serverKey string) tracker.Listing {
		return tracker.Listing{Host: host, Room: "r", ServerKey: serverKey, Map: tracker.MapMeta{Name: "m", Seats: 2},
			Status: tracker.StatusWaiting, Engine: "tickwire", NetworkModel: "lockstep"}
	}
	real := hex.EncodeToString(key.Public().(ed25519.PublicKey))
	other, _, _ := ed25519.GenerateKey(nil)
	for _, c2 := range []struct {
		name string
		l    tracker.Listing
	}{
		{"another key at the real server's address", listing(udp, hex.EncodeToString(other))},
		{"no key", listing(udp, "")},
		{"nothing at the address", listing(freeAddr(t, "udp"), real)},
	} {
		if _, err := c.Publish(ctx, c2.l); err == nil || !strings.Contains(err.Error(), "422") {
			t.Errorf("%s: %v, want 422", c2.name, err)
		}
	}
	if _, err := c.Publish(ctx, listing(udp, real)); err != nil {
		t.Fatalf("the real server's listing: %v", err)
	}
	if ls, err := c.Browse(ctx, tracker.Filter{}); err != nil || len(ls) != 1 || ls[0].ServerKey != real {
		t.Fatalf("browse = %v, %v", ls, err)
	}
}
