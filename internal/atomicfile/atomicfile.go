// Package atomicfile writes files whole or not at all: a reader (or a
// crash) never sees half a file.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write writes data to a temporary file beside path, syncs it and renames
// it over path.
func Write(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	err = errors.Join(err, f.Chmod(perm), f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
