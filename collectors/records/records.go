// Package records collects backfill plans (YAML) and decision records
// (Markdown with YAML front matter) from directories.
//
// Units: every plan or record file is its own unit, its scope path being
// the file's path as reported in Location.Path (relative to the config
// file's directory when under it, with "/" separators). A directory that
// cannot be listed is an error at the directory's path, which covers every
// file below it.
package records

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/safefile"
)

//go:embed sample.yaml
var sample string

func init() {
	collectors.Register("records", func() collectors.Collector { return &Records{} })
}

// maxFileBytes caps one plan or record file: far above any real one, far
// below what would hurt the YAML decoder.
const maxFileBytes = 16 << 20

// Records reads plan files (*.yaml, *.yml) and decision records (*.md)
// below its directories. A file that cannot be read is reported against
// that file's path and the rest are read.
type Records struct {
	// Plans are directories or files of backfill plans.
	Plans []string `mapstructure:"plans"`
	// Records are directories or files of decision records.
	Records []string `mapstructure:"records"`
	// CodeOwners is a GitHub CODEOWNERS file: the owners its last
	// matching line gives a plan's or record's file are the backfill's
	// when the plan names no owner. Its patterns are relative to the
	// repository root: the file's directory, or its parent when the file
	// is in .github/ or docs/ (where GitHub looks for it).
	CodeOwners string `mapstructure:"codeowners"`
	// Base resolves relative paths: the config file's directory.
	Base string `mapstructure:"-"`
	// where names a key's place in the config file (SetLocator).
	where func(key string) string
}

// SetLocator lets a missing configured folder name its line in the config.
func (r *Records) SetLocator(where func(key string) string) { r.where = where }

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

// Inputs are the plan and record folders and the CODEOWNERS file.
func (r *Records) Inputs() []collectors.Input {
	in := append(collectors.Inputs(r.Base, "plans", r.Plans), collectors.Inputs(r.Base, "records", r.Records)...)
	if r.CodeOwners != "" {
		in = append(in, collectors.Input{Key: "codeowners", Path: collectors.Resolve(r.Base, r.CodeOwners)})
	}
	return in
}

// Collect reads every plan and record. It fails the source only when no
// configured path could be listed at all.
func (r *Records) Collect(ctx context.Context, sink collectors.Sink) error {
	var failed []string
	planFiles, planOK, err := r.files(sink, &failed, "plans", r.Plans, ".yaml", ".yml")
	if err != nil {
		return err
	}
	recordFiles, recordOK, err := r.files(sink, &failed, "records", r.Records, ".md", ".markdown")
	if err != nil {
		return err
	}
	if planOK+recordOK == 0 {
		return fmt.Errorf("records: none of the configured paths could be read: %s", strings.Join(failed, ", "))
	}
	owners := r.codeOwners(sink)
	for _, f := range planFiles {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.readPlans(sink, f, owners)
	}
	for _, f := range recordFiles {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.readRecord(sink, f, owners)
	}
	return nil
}

// readPlans emits a plan file's plans; every error is at the file's unit,
// spelt as the plans' Location.Path.
func (r *Records) readPlans(sink collectors.Sink, f string, owners *codeOwners) {
	unit := r.display(f)
	b, err := safefile.ReadLimit(f, maxFileBytes)
	if err != nil {
		sink.AddError(unit, &PlanError{Path: unit, Err: unitErr(f, err)})
		return
	}
	plans, errs := ParsePlans(unit, b)
	sink.AddRead(unit, "plans", len(plans), 0)
	for _, p := range plans {
		p.CodeOwners = owners.of(f)
		sink.AddBackfill(p)
	}
	for _, e := range errs {
		sink.AddError(unit, e)
	}
}

func (r *Records) readRecord(sink collectors.Sink, f string, owners *codeOwners) {
	unit := r.display(f)
	b, err := safefile.ReadLimit(f, maxFileBytes)
	if err != nil {
		sink.AddError(unit, &PlanError{Path: unit, Err: unitErr(f, err)})
		return
	}
	rec, err := ParseRecord(unit, b)
	if err != nil {
		sink.AddError(unit, err)
		return
	}
	rec.CodeOwners = owners.of(f)
	sink.AddRead(unit, "decision records", 1, 0)
	sink.AddRecord(rec)
}

// unitErr drops the absolute path safefile and os put in front of their
// errors: the PlanError around it names the file as reported.
func unitErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	if msg, ok := strings.CutPrefix(err.Error(), path+": "); ok {
		return plainError(msg)
	}
	return err
}

// files expands the configured paths (directories recursively) into the
// regular files with the extensions. A configured path that is missing or
// cannot be listed, a subdirectory that cannot be listed and an entry that
// is not a regular file (a named pipe, a device) are errors at their own
// path; ok counts the configured paths that could be listed, and failed
// gets the others.
func (r *Records) files(sink collectors.Sink, failed *[]string, key string, paths []string, exts ...string) (out []string, ok int, err error) {
	for i, p := range paths {
		p = r.resolve(p)
		st, err := os.Stat(p)
		if err != nil {
			what := r.configuredPathError(fmt.Sprintf("%s[%d]", key, i), p, err)
			sink.AddError(r.display(p), fmt.Errorf("records: %w", what))
			if r.where != nil {
				*failed = append(*failed, what.Error())
			} else {
				*failed = append(*failed, r.display(p))
			}
			continue
		}
		if !st.IsDir() {
			out = append(out, p)
			ok++
			continue
		}
		rootOK := true
		// The trailing separator makes WalkDir enter a configured path that
		// is a symlink to a directory; symlinks below it are not followed.
		root := p + string(filepath.Separator)
		walkErr := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				sink.AddError(r.display(path), fmt.Errorf("records: list %s: %w", r.display(path), unitErr(path, err)))
				if path == root {
					rootOK = false
				}
				if d != nil && d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				// Hidden directories (.git, a Kubernetes volume's ..data
				// and ..<timestamp>) hold copies, not more plans.
				if path != root && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !hasExt(path, exts) {
				return nil
			}
			if !safefile.IsRegular(path, d) {
				sink.AddError(r.display(path), fmt.Errorf("records: %s: skipped: %w", r.display(path), notRegular(path)))
				return nil
			}
			out = append(out, path)
			return nil
		})
		if walkErr != nil {
			return nil, 0, fmt.Errorf("records: %w", walkErr)
		}
		if rootOK {
			ok++
		} else {
			*failed = append(*failed, r.display(p))
		}
	}
	slices.Sort(out)
	return slices.Compact(out), ok, nil
}

// configuredPathError says that a configured path cannot be read, naming
// the config's key and line when the loader said where they are.
func (r *Records) configuredPathError(key, path string, err error) error {
	if r.where == nil {
		return fmt.Errorf("%s: %w", r.display(path), unitErr(path, err))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such file or folder: %s", r.where(key), path)
	}
	return fmt.Errorf("%s: %s: %w", r.where(key), path, unitErr(path, err))
}

// notRegular says what an odd entry is, without its absolute path.
func notRegular(path string) error {
	if err := safefile.Check(path); err != nil {
		return unitErr(path, err)
	}
	return safefile.ErrNotRegular
}

func (r *Records) resolve(p string) string {
	if !filepath.IsAbs(p) && r.Base != "" {
		p = filepath.Join(r.Base, p)
	}
	return filepath.Clean(p)
}

// display names a file relative to Base, so reports and saved estates read
// the same on every machine. It is the file's unit: a directory's display
// is a prefix of its files' displays.
func (r *Records) display(path string) string {
	path = filepath.Clean(path)
	if r.Base != "" {
		if rel, err := filepath.Rel(r.Base, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(path)
}

func hasExt(path string, exts []string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return slices.Contains(exts, ext)
}
