package replay

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"
)

// Suffix ends the name of every replay file a server writes.
const Suffix = ".twrp"

// Config is a server's replay recording, the same for every network
// model. The zero value records nothing.
type Config struct {
	// Dir is the directory of the files, one per match; "" records
	// nothing.
	Dir string
	// Key signs the files (the server's identity).
	Key ed25519.PrivateKey
	// SignEvery is the frames between signatures (0: 300).
	SignEvery uint16
	// Recorder bounds the background writer's queue and wait.
	Recorder RecorderConfig
	// OnFinished, if set, is told of every replay finished (from the
	// room's goroutine, after its match ended), or that failed.
	OnFinished func(Finished)
}

// Finished is a match's replay, finished.
type Finished struct {
	Room string
	// Path is the file; Err says why it is missing or left ".part".
	Path string
	Err  error
	Result
	Ticks uint64
}

// Recording is one match's replay being written into a directory:
// "<UTC start>-<room>-<seed>.twrp", as ".part" until Finish.
type Recording struct {
	*Recorder
	cfg  *Config
	room string
	file *File
	path string
}

// Start creates h's file in cfg.Dir and starts recording it; h.StartedUnixUs
// 0 is now.
func Start(cfg *Config, h Header) (*Recording, error) {
	if h.StartedUnixUs == 0 {
		h.StartedUnixUs = time.Now().UnixMicro()
	}
	if h.SignEvery == 0 {
		h.SignEvery = cfg.SignEvery
	}
	at := time.UnixMicro(h.StartedUnixUs).UTC()
	path := filepath.Join(cfg.Dir, fmt.Sprintf("%s-%s-%016x%s", at.Format("20060102T150405.000000Z"), fileSafe(h.Room), h.Seed, Suffix))
	r := &Recording{cfg: cfg, room: h.Room, path: path}
	f, err := Create(path)
	if err != nil {
		r.finished(Result{}, 0, err)
		return nil, err
	}
	rec, err := NewRecorder(f, h, cfg.Key, cfg.Recorder)
	if err != nil {
		f.Abandon()
		r.finished(Result{}, 0, err)
		return nil, err
	}
	r.file, r.Recorder = f, rec
	return r, nil
}

// Path is the file's final name.
func (r *Recording) Path() string { return r.path }

// Finish closes the replay with footer f, commits the file under its
// final name and tells cfg.OnFinished.
func (r *Recording) Finish(f Footer) Finished {
	res, err := r.Close(f)
	if err != nil {
		r.file.Abandon()
	} else {
		err = r.file.Commit()
	}
	return r.finished(res, f.Ticks, err)
}

func (r *Recording) finished(res Result, ticks uint64, err error) Finished {
	fin := Finished{Room: r.room, Path: r.path, Err: err, Result: res, Ticks: ticks}
	if r.cfg.OnFinished != nil {
		r.cfg.OnFinished(fin)
	}
	return fin
}

// fileSafe keeps a room's name to letters, digits, '-' and '_' (at most
// 64 bytes) for a file name.
func fileSafe(name string) string {
	s := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, name)
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		s = "room"
	}
	return s
}

// Log logs the finished replay: an error, an incomplete file (the disk
// did not keep up) or the file written.
func (f Finished) Log(log *slog.Logger) {
	switch {
	case f.Err != nil:
		log.Error("replay not finished", "path", f.Path, "err", f.Err)
	case f.Incomplete:
		log.Warn("replay incomplete: the disk did not keep up", "path", f.Path, "lost_frames", f.LostFrames)
	default:
		log.Info("replay written", "path", f.Path, "bytes", f.Bytes, "ticks", f.Ticks)
	}
}

// WithKey returns c with a fresh signing key if it records and has none
// (the key's public half is in every file's header).
func (c Config) WithKey() Config {
	if c.Dir != "" && c.Key == nil {
		_, c.Key, _ = ed25519.GenerateKey(rand.Reader)
	}
	return c
}
