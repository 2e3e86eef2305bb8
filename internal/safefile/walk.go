package safefile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// ErrTooMany is Walk's error when a directory holds more files than it
// may list; the first ones are returned with it.
var ErrTooMany = errors.New("too many files")

// WalkOptions say which files Walk lists and where its errors go.
type WalkOptions struct {
	// Match picks files by name (nil lists every file).
	Match func(name string) bool
	// Hidden enters hidden directories and lists hidden files. Off, a
	// name starting with "." (.git, .github, a tool's .yamllint.yaml, a
	// Kubernetes volume's ..data copy) is passed over: it is a tool's
	// configuration or a copy, not what the source reads.
	Hidden bool
	// Max caps the files listed; 0 is no cap.
	Max int
	// Fail receives, by path, what below the root could not be listed
	// and each matched entry that is not a regular file (a FIFO would
	// block its reader): errors at that path's scope, the rest is listed.
	Fail func(path string, err error)
}

// Walk lists the files below root that o matches, at any depth, in
// filepath.WalkDir's order (each directory's entries by name). Symbolic links below root are not followed (a link to a
// regular file is listed); root itself may be a link to a directory. An
// error of root itself is returned; the rest go to o.Fail. It is the one
// directory walk of the collectors, so every source treats a folder the
// same way.
func Walk(ctx context.Context, root string, o WalkOptions) ([]string, error) {
	var out []string
	// The trailing separator makes WalkDir enter a root that is a
	// symbolic link to a directory.
	start := root
	if !strings.HasSuffix(start, string(filepath.Separator)) {
		start += string(filepath.Separator)
	}
	err := filepath.WalkDir(start, func(path string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		top := path == start
		if err != nil {
			if top {
				return err
			}
			if o.Fail != nil {
				o.Fail(path, PlainError(path, err))
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !top && !o.Hidden && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || (o.Match != nil && !o.Match(d.Name())) {
			return nil
		}
		if !IsRegular(path, d) {
			if o.Fail != nil {
				o.Fail(path, notRegular(path))
			}
			return nil
		}
		if o.Max > 0 && len(out) == o.Max {
			return fmt.Errorf("more than %d files: %w", o.Max, ErrTooMany)
		}
		out = append(out, path)
		return nil
	})
	if err != nil {
		return out, PlainError(start, err)
	}
	return out, nil
}

// notRegular says what a matched entry is instead of a regular file.
func notRegular(path string) error {
	if err := Check(path); err != nil {
		return fmt.Errorf("not read: %w", PlainError(path, err))
	}
	return fmt.Errorf("not read: %w", ErrNotRegular)
}
