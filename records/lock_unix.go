//go:build unix

package records

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// writerLock is the database's writer lock: an exclusive flock on
// path+".lock", which holds who took it. The kernel drops it when the
// process dies (kill -9 included), so a stale file never blocks a
// restart. flock locks belong to the open file, so a second Open in the
// same process is refused too.
type writerLock struct{ f *os.File }

func lockWriter(path string) (*writerLock, error) {
	name := path + ".lock"
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(name)
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			who := string(bytes.TrimSpace(holder))
			if who == "" {
				who = "a process starting"
			}
			return nil, fmt.Errorf("%w: %s is locked by %s (%s); one server writes a database: give each its own --db", ErrInUse, path, who, name)
		}
		return nil, fmt.Errorf("records: lock %s: %w", name, err)
	}
	host, _ := os.Hostname()
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d on %s since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	}
	return &writerLock{f: f}, nil
}

// release unlocks (closing the file drops the flock); the file stays, as
// another process may be opening it.
func (l *writerLock) release() { l.f.Close() }
