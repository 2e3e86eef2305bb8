package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ReadSaved reads one saved API answer, name (slash-separated) under dir,
// for the collectors that audit an export instead of a live server. found
// is false when the file does not exist (the caller decides whether that
// unit did not answer). A file that is present but empty or `null` is an
// error, never an empty answer. Errors name the file as the export names
// it, without dir.
func ReadSaved(dir, name string, limit int64) (b []byte, found bool, err error) {
	p := filepath.Join(dir, filepath.FromSlash(name))
	b, err = ReadLimit(p, limit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case errors.Is(err, ErrTooLarge):
		return nil, true, fmt.Errorf("%s: larger than %d MiB: refused", name, limit>>20)
	case err != nil:
		return nil, true, fmt.Errorf("%s: %w", name, PlainError(p, err))
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || string(t) == "null" {
		return nil, true, fmt.Errorf("%s: empty file", name)
	}
	return b, true, nil
}

// ListSaved lists by name, sorted, the entries of the folder name
// (slash-separated) under dir that keep takes, for the collectors that
// audit an export: none when the folder does not exist. Errors name the
// folder as the export names it, without dir.
func ListSaved(dir, name string, keep func(fs.DirEntry) bool) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(name)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, PlainError("", err))
	}
	var out []string
	for _, e := range entries { // os.ReadDir sorts them by name
		if keep(e) {
			out = append(out, e.Name())
		}
	}
	return out, nil
}
