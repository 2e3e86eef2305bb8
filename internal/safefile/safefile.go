// Package safefile reads the files bfaudit is pointed at (config, plans,
// records, inventory, exports, estates, templates) only when they are
// regular files of a sane size: a named pipe among plan files would block
// the audit forever, and a symlink to /dev/zero would fill memory.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// DefaultLimit is the largest file read unless a caller asks otherwise:
// far above any plan, record or config, and above a large saved estate.
const DefaultLimit = 512 << 20

// ErrNotRegular is returned for pipes, devices, sockets and directories.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned for a file over the limit.
var ErrTooLarge = errors.New("file too large")

// Read reads path when it is a regular file (symlinks followed) no larger
// than DefaultLimit.
func Read(path string) ([]byte, error) { return ReadLimit(path, DefaultLimit) }

// ReadLimit reads path when it is a regular file no larger than limit bytes.
// Errors name the path.
func ReadLimit(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", path, ErrTooLarge, st.Size(), limit)
	}
	// The size can change between Stat and Read; never read past the limit.
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w (over %d bytes)", path, ErrTooLarge, limit)
	}
	return b, nil
}

// Open opens path for reading when it is a regular file. It checks before
// opening (opening a FIFO for reading blocks until a writer appears) and
// again after (the path may have been swapped in between).
func Open(path string) (*os.File, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, kind(st.Mode()))
	}
	return f, nil
}

// Check reports an error when path is not a regular file (after symlinks).
func Check(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, kind(st.Mode()))
	}
	return nil
}

// IsRegular reports whether a directory entry is a regular file, following
// a symlink; for skipping odd entries while walking a directory.
func IsRegular(path string, d fs.DirEntry) bool {
	if d.Type().IsRegular() {
		return true
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	return Check(path) == nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}
