// Package records collects backfill plans (YAML) and decision records
// (Markdown with YAML front matter) from directories.
package records

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
)

//go:embed sample.yaml
var sample string

func init() {
	collectors.Register("records", func() collectors.Collector { return &Records{} })
}

// Records reads plan files (*.yaml, *.yml) and decision records (*.md)
// below its directories. A file that cannot be read is reported against
// that file's path and the rest are read.
type Records struct {
	// Plans are directories or files of backfill plans.
	Plans []string `mapstructure:"plans"`
	// Records are directories or files of decision records.
	Records []string `mapstructure:"records"`
	// Base resolves relative paths: the config file's directory.
	Base string `mapstructure:"-"`
}

// SetBaseDir resolves relative paths against the config file's directory.
func (r *Records) SetBaseDir(dir string) { r.Base = dir }

// SampleConfig documents the source entry.
func (r *Records) SampleConfig() string { return sample }

// Init checks that something is configured.
func (r *Records) Init() error {
	if len(r.Plans) == 0 && len(r.Records) == 0 {
		return errors.New("plans/records: set at least one directory of plan files or decision records")
	}
	return nil
}

// Collect reads every plan and record.
func (r *Records) Collect(ctx context.Context, sink collectors.Sink) error {
	planFiles, err := r.files(r.Plans, ".yaml", ".yml")
	if err != nil {
		return err
	}
	for _, f := range planFiles {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		b, err := os.ReadFile(f)
		if err != nil {
			sink.AddError(r.display(f), err)
			continue
		}
		plans, errs := ParsePlans(r.display(f), b)
		for _, p := range plans {
			sink.AddBackfill(p)
		}
		for _, e := range errs {
			sink.AddError(r.display(f), e)
		}
	}
	recordFiles, err := r.files(r.Records, ".md", ".markdown")
	if err != nil {
		return err
	}
	for _, f := range recordFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			sink.AddError(r.display(f), err)
			continue
		}
		rec, err := ParseRecord(r.display(f), b)
		if err != nil {
			sink.AddError(r.display(f), err)
			continue
		}
		sink.AddRecord(rec)
	}
	return nil
}

// files expands directories (recursively) into files with the extensions.
// A configured path that does not exist fails the source: it is a config
// mistake, not an empty estate.
func (r *Records) files(paths []string, exts ...string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) && r.Base != "" {
			p = filepath.Join(r.Base, p)
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("records: %w", err)
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && hasExt(path, exts) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("records: %w", err)
		}
	}
	sort.Strings(out)
	return out, nil
}

// display names a file relative to Base, so reports and saved estates read
// the same on every machine.
func (r *Records) display(path string) string {
	if r.Base == "" {
		return path
	}
	if rel, err := filepath.Rel(r.Base, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

func hasExt(path string, exts []string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range exts {
		if ext == e {
			return true
		}
	}
	return false
}
