package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"sync"

	"github.com/tickwire/tickwire/lockstep/lockstepbot"
	"github.com/tickwire/tickwire/lockstep/lockstepserver"
	"github.com/tickwire/tickwire/replay"
)

// replayOptions are serve's replay recording: --replay-dir (relay.replay_dir).
type replayOptions struct {
	dir string
	// key signs the replays: the server's identity (--key, or the one
	// made for this run).
	key ed25519.PrivateKey
	// done holds each finished replay until its match record is ended.
	done *replayLog
}

func (o *replayOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.dir, "replay-dir", "", "record every match into this directory (every network model), one signed replay file per match, renamed from .part when it ends (empty: none)")
}

// setUp checks the directory and takes the signing key: the server's
// identity, made now if the server has none yet, so replays and the
// handshake prove the same key.
func (o *replayOptions) setUp(sec *securityFlags) error {
	o.done = &replayLog{m: map[string]replay.Finished{}}
	if o.dir == "" {
		return nil
	}
	st, err := os.Stat(o.dir)
	if err != nil || !st.IsDir() {
		return fmt.Errorf("%w: --replay-dir (relay.replay_dir): %s is not a directory", errUsage, o.dir)
	}
	key, err := sec.identityKey()
	if err != nil {
		return err
	}
	o.key = key
	return nil
}

// lockstep is the lockstep rooms' recording.
func (o replayOptions) lockstep() lockstepserver.Replays {
	if o.dir == "" {
		return lockstepserver.Replays{}
	}
	return lockstepserver.Replays{Config: o.config(), Game: lockstepbot.GameName, Setup: lockstepbot.GameHashes}
}

// config is the recording every model shares.
func (o replayOptions) config() replay.Config {
	if o.dir == "" {
		return replay.Config{}
	}
	return replay.Config{Dir: o.dir, Key: o.key, OnFinished: o.done.add}
}

// replayLog hands each room's finished replay to its match record (the
// room's replay finishes just before its match ends, on the same
// goroutine). It keeps nothing unless a database takes them.
type replayLog struct {
	mu   sync.Mutex
	keep bool
	m    map[string]replay.Finished // by room
}

func (l *replayLog) add(f replay.Finished) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.keep && f.Err == nil {
		l.m[f.Room] = f
	}
}

// keeping makes the log keep the replays (for a database) or not.
func (l *replayLog) keeping(keep bool) *replayLog {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keep = keep
	return l
}

// take returns and forgets room's replay file and its SHA-256 (hex).
func (l *replayLog) take(room string) (path, sum string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.m[room]
	if !ok {
		return "", ""
	}
	delete(l.m, room)
	return f.Path, hex.EncodeToString(f.SHA256[:])
}

// identityKey is the server's Ed25519 identity: --key's, or one made for
// this run; serverConfig proves the same one in the handshake.
func (s *securityFlags) identityKey() (ed25519.PrivateKey, error) {
	if s.key != nil {
		return s.key, nil
	}
	var err error
	if s.keyFile == "" {
		_, s.key, err = ed25519.GenerateKey(rand.Reader)
	} else {
		s.key, err = loadOrCreateKey(s.keyFile)
	}
	return s.key, err
}
