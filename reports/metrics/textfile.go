package metrics

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bfaudit/bfaudit/internal/safefile"
	"github.com/bfaudit/bfaudit/model"
)

// CheckFile says, before the run starts, whether a metrics file can be
// written at path: its folder exists and path is not a folder. A run that
// would only find out at its end wastes the run.
func CheckFile(path string) error {
	if path == "" {
		return errors.New("empty path")
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s: folder %s: %w", path, dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s: %s is not a folder", path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s: is a folder, not a file", path)
	}
	return nil
}

// WriteFile writes r's metrics to path for node_exporter's textfile
// collector: to a temporary file in the same folder, then renamed over
// path, so a scrape reads the old file or the new one, never half of one
// (a rename within a folder is atomic; across folders it is not). The
// temporary name does not end in .prom, so the collector skips it.
//
// An incomplete run carries the last-success time of the file it
// replaces, so a stale-success alert measures from the last complete run.
func WriteFile(path string, r *model.Report, run Run) error {
	if !run.Complete && run.PreviousSuccess.IsZero() {
		run.PreviousSuccess = previousSuccess(path)
	}
	text, err := Text(Families(r, run))
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	if err := writeAtomic(path, text); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}

func writeAtomic(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// node_exporter often runs as another user: the file is readable by
	// all, as one written with the usual umask would be.
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	done = true
	return nil
}

// maxPreviousBytes bounds reading the file being replaced; one with more
// is not ours (or is absurd), and the last success is then unknown.
const maxPreviousBytes = 64 << 20

// previousSuccess is the last-success time in the metrics file at path;
// zero when there is none, it cannot be read, or it holds no such line.
func previousSuccess(path string) time.Time {
	b, err := safefile.ReadLimit(path, maxPreviousBytes)
	if err != nil {
		return time.Time{} // none yet (the first run), or not one to trust
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), LastSuccess+" ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || f <= 0 {
			return time.Time{}
		}
		return time.UnixMilli(int64(f * 1000)).UTC()
	}
	return time.Time{}
}
