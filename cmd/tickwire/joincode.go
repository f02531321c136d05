package main

import (
	"context"
	"fmt"
	"time"

	"github.com/tickwire/tickwire/tracker"
)

// resolveJoinCode asks --tracker what --join-code names and takes the
// server's address, the room and the server's key (to pin) from it. A
// single-use code is used up by this.
func (f *botCommon) resolveJoinCode() error {
	if f.joinCode == "" {
		if f.trackerURL != "" {
			return fmt.Errorf("%w: --tracker goes with --join-code", errUsage)
		}
		return nil
	}
	switch {
	case f.trackerURL == "":
		return fmt.Errorf("%w: --join-code needs --tracker", errUsage)
	case f.server != "" || f.room != "":
		return fmt.Errorf("%w: --join-code names the server and room: leave out --server and --room", errUsage)
	}
	code, err := tracker.ParseCode(f.joinCode)
	if err != nil {
		return fmt.Errorf("%w: --join-code %q: %v", errUsage, f.joinCode, err)
	}
	c, err := tracker.NewClient(f.trackerURL)
	if err != nil {
		return fmt.Errorf("%w: --tracker: %v", errUsage, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e, err := c.ResolveCode(ctx, code)
	if err != nil {
		return &connectError{addr: f.trackerURL, err: fmt.Errorf("join code %s: %w", code, err), tracker: true}
	}
	f.server, f.room = e.Host, e.Room
	if e.ServerKey != "" && f.sec.serverKey == "" {
		f.sec.serverKey = e.ServerKey
	}
	return nil
}
