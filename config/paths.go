package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/safefile"
	"github.com/bfaudit/bfaudit/reports/history"
)

// checkPaths records a problem for each local file or folder the config
// names that a run could not use: an input that is not there (a glob
// that matches nothing), an output whose folder cannot be made.
func (c *Config) checkPaths(col *collector) {
	for i, in := range c.Instances {
		l, ok := in.Collector.(collectors.InputLister)
		if !ok {
			continue
		}
		for _, p := range l.Inputs() {
			key := joinKey(fmt.Sprintf("sources[%d]", i), p.Key)
			if !col.failed(key) {
				col.add(key, checkInput(p))
			}
		}
	}
	for _, f := range slices.Sorted(maps.Keys(c.Report.Outputs)) {
		key := "report.outputs." + f
		if !col.failed(key) {
			col.add(key, checkOutput(c.Report.Outputs[f]))
		}
	}
	if h := c.History; h != nil && h.Driver == history.DriverSQLite && !col.failed("history") {
		col.add("history.path", checkOutput(h.Path))
	}
}

// checkInput says what is wrong with a path a source reads, nil when it
// is there (a glob: when it matches something, as the collector's own glob
// matches: hidden names only when it reads them).
func checkInput(in collectors.Input) error {
	path := in.Path
	if safefile.HasMeta(path) {
		m, err := safefile.Glob(path, in.Hidden)
		if err != nil {
			return fmt.Errorf("bad pattern %s: %w", path, err)
		}
		if len(m) == 0 {
			return fmt.Errorf("no such file or folder matches %s", path)
		}
		return nil
	}
	_, err := os.Stat(path)
	return statError(path, err)
}

// checkOutput says what is wrong with a file a run writes: it must not be
// a folder, and the nearest folder above it that exists must be a folder
// (the run makes the rest).
func checkOutput(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("is a folder, not a file: %s", path)
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("cannot make the folder of %s: %s is a file", path, dir)
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return statError(dir, err)
		}
		if parent := filepath.Dir(dir); parent == dir {
			return nil
		}
	}
}

func statError(path string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no such file or folder: %s", path)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("permission denied: %s", path)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", path, pe.Err)
	}
	return err
}
