// Package redistest starts a real redis-server for a test, on a free
// loopback port, and stops it when the test ends. CI installs redis-server
// from the distribution's packages; a machine without it skips the test
// with a message saying so.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Start runs redis-server and returns its redis:// URL.
func Start(t testing.TB) string {
	t.Helper()
	url, _ := StartStoppable(t)
	return url
}

// StartStoppable runs redis-server and returns its redis:// URL and a
// function that kills it before the test ends (a store out of reach).
func StartStoppable(t testing.TB) (string, func()) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (CI installs it: apt-get install redis-server)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { cmd.Process.Kill(); cmd.Wait() }) }
	t.Cleanup(stop)
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	opt, _ := redis.ParseURL(url)
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	for deadline := time.Now().Add(10 * time.Second); ; {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return url, stop
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not answer on port %d: %v", port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
