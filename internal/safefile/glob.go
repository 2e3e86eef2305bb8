package safefile

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// HasMeta reports whether a configured path is a glob pattern (it holds
// *, ? or [), as filepath.Match reads them.
func HasMeta(p string) bool { return strings.ContainsAny(p, `*?[`) }

// FixedDir is the directory above a glob's first pattern segment: the
// unit a glob that cannot be listed, or matches nothing, is reported at.
func FixedDir(pattern string) string {
	dir := pattern
	for HasMeta(dir) {
		dir = filepath.Dir(dir)
	}
	return dir
}

// PlainError drops the resolved (often absolute) path from a file error,
// so the message names the file by its unit instead of where this machine
// keeps it.
func PlainError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	if msg, ok := strings.CutPrefix(err.Error(), path+": "); ok {
		return errors.New(msg)
	}
	return err
}
