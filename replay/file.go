package replay

import (
	"fmt"
	"os"
)

// PartSuffix names a replay still being written (or whose writer died):
// File writes PATH+PartSuffix and renames it PATH when committed.
const PartSuffix = ".part"

// File is a replay file being written: it appears under its name only
// once whole (Commit renames it atomically), so a reader never mistakes
// a match in progress, or one a crash cut short, for a finished replay;
// the ".part" file a crash leaves still reads up to its last whole
// record.
type File struct {
	f    *os.File
	path string
}

// Create creates path+PartSuffix for writing; it fails if either name
// exists.
func Create(path string) (*File, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("replay: %s exists", path)
	}
	f, err := os.OpenFile(path+PartSuffix, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return &File{f: f, path: path}, nil
}

// Write implements io.Writer.
func (f *File) Write(p []byte) (int, error) { return f.f.Write(p) }

// Commit syncs the file, closes it and renames it to its final name.
func (f *File) Commit() error {
	err := f.f.Sync()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.path+PartSuffix, f.path)
}

// Abandon closes the file and leaves it under its ".part" name.
func (f *File) Abandon() error { return f.f.Close() }
