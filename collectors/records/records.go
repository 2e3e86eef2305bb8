// Package records collects backfill plans (YAML) and decision records
// (Markdown with YAML front matter) from directories.
//
// Units: every plan or record file is its own unit, its scope path being
// the file's path as reported in Location.Path (relative to the config
// file's directory when under it, with "/" separators). A directory that
// cannot be listed is an error at the directory's path, which covers every
// file below it. The source declares as units the configured paths, files
// or folders, and the CODEOWNERS file.
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
	"github.com/bfaudit/bfaudit/model"
)

//go:embed sample.yaml
var sample string

func init() {
	collectors.Register("records", func() collectors.Collector { return &Records{} }, sample)
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

	env collectors.Env
	// owners is this run's CODEOWNERS file, read by Units: every plan and
	// record unit needs it, whichever is read first.
	owners *ownersRead
}

// Init checks that something is configured.
func (r *Records) Init(env collectors.Env) error {
	r.env = env
	if len(r.Plans) == 0 && len(r.Records) == 0 {
		return errors.New("plans/records: set at least one directory of plan files or decision records")
	}
	return nil
}

// Inputs are the plan and record folders and the CODEOWNERS file.
func (r *Records) Inputs() []collectors.Input {
	base := r.env.BaseDir
	in := append(collectors.Inputs(base, "plans", r.Plans), collectors.Inputs(base, "records", r.Records)...)
	if r.CodeOwners != "" {
		in = append(in, collectors.Input{Key: "codeowners", Path: collectors.Resolve(base, r.CodeOwners)})
	}
	return in
}

// configured is one configured plan or record path.
type configured struct {
	key  string // plans[0], for the config's place
	path string // resolved
	unit string
	plan bool // plans, else records
}

var (
	planExts   = []string{".yaml", ".yml"}
	recordExts = []string{".md", ".markdown"}
)

func (r *Records) configured() []configured {
	var out []configured
	for i, p := range r.Plans {
		p = r.resolve(p)
		out = append(out, configured{key: fmt.Sprintf("plans[%d]", i), path: p, unit: r.unitOf(p), plan: true})
	}
	for i, p := range r.Records {
		p = r.resolve(p)
		out = append(out, configured{key: fmt.Sprintf("records[%d]", i), path: p, unit: r.unitOf(p)})
	}
	return out
}

// unitOf is a configured path's unit: its display, the whole source for
// the config file's own folder (its files display as "a.yaml", which is
// not under ".").
func (r *Records) unitOf(path string) string {
	if u := r.display(path); u != "." {
		return u
	}
	return ""
}

// Units are the configured plan and record paths, files or folders, and
// the CODEOWNERS file, which is read here once for all of them.
func (r *Records) Units(context.Context) ([]string, error) {
	r.owners = r.readCodeOwners()
	var units []string
	if r.owners != nil {
		units = append(units, r.owners.unit)
	}
	for _, c := range r.configured() {
		units = append(units, c.unit)
	}
	return compactStable(units), nil
}

// compactStable drops repeated units, keeping the first of each.
func compactStable(units []string) []string {
	seen := map[string]bool{}
	out := units[:0]
	for _, u := range units {
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// CollectUnit reads the plans and records of one configured path (every
// configured path spelt as this unit), or reports the CODEOWNERS file.
func (r *Records) CollectUnit(ctx context.Context, unit string, sink collectors.Sink) error {
	if r.owners != nil && unit == r.owners.unit {
		r.owners.report(sink)
	}
	all := r.configured()
	var errs []error
	for _, plan := range []bool{true, false} {
		if err := r.collectKind(ctx, sink, unit, plan, all); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// collectKind reads the plans (or records) of the configured paths at
// unit. A file is read once, by the most specific configured path that
// holds it (plans/ and plans/a.yaml both configured).
func (r *Records) collectKind(ctx context.Context, sink collectors.Sink, unit string, plan bool, all []configured) error {
	exts, what := recordExts, "decision records"
	if plan {
		exts, what = planExts, "plans"
	}
	var files []string
	var errs []error
	listed := false
	for _, c := range all {
		if c.unit != unit || c.plan != plan {
			continue
		}
		fs, err := r.files(ctx, sink, c, exts)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		listed = true
		for _, f := range fs {
			if !r.nearer(f, c, all) {
				files = append(files, f)
			}
		}
	}
	slices.Sort(files)
	files = slices.Compact(files)
	if listed && len(files) == 0 {
		sink.AddRead(unit, what, 0, 0) // an empty folder answers: none
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if plan {
			r.readPlans(sink, f)
		} else {
			r.readRecord(sink, f)
		}
	}
	return errors.Join(errs...)
}

// nearer reports whether another configured path of the same kind, more
// specific than c, holds file f: that path's unit reads it.
func (r *Records) nearer(f string, c configured, all []configured) bool {
	d := r.display(f)
	for _, o := range all {
		if o.plan == c.plan && len(o.unit) > len(c.unit) && model.ScopeWithin(d, o.unit) {
			return true
		}
	}
	return false
}

// readPlans emits a plan file's plans; every error is at the file's unit,
// spelt as the plans' Location.Path.
func (r *Records) readPlans(sink collectors.Sink, f string) {
	unit, b, ok := r.read(sink, f)
	if !ok {
		return
	}
	plans, errs := ParsePlans(unit, b)
	sink.AddRead(unit, "plans", len(plans), 0)
	for _, p := range plans {
		p.CodeOwners = r.owners.of(f)
		sink.AddBackfill(p)
	}
	for _, e := range errs {
		sink.AddError(unit, e)
	}
}

func (r *Records) readRecord(sink collectors.Sink, f string) {
	unit, b, ok := r.read(sink, f)
	if !ok {
		return
	}
	rec, err := ParseRecord(unit, b)
	if err != nil {
		sink.AddError(unit, err)
		return
	}
	rec.CodeOwners = r.owners.of(f)
	sink.AddRead(unit, "decision records", 1, 0)
	sink.AddRecord(rec)
}

// read reads a plan or record file; one that cannot be read is an error
// at its unit, spelt as reports show it.
func (r *Records) read(sink collectors.Sink, f string) (unit string, b []byte, ok bool) {
	unit = r.display(f)
	b, err := safefile.ReadLimit(f, maxFileBytes)
	if err != nil {
		sink.AddError(unit, &PlanError{Path: unit, Err: safefile.PlainError(f, err)})
		return unit, nil, false
	}
	return unit, b, true
}

// files expands a configured path (a directory recursively) into the
// regular files with the extensions. A configured path that is missing or
// cannot be listed is the unit's error, returned; a subdirectory that
// cannot be listed and an entry that is not a regular file (a named pipe,
// a device) are errors at their own path.
func (r *Records) files(ctx context.Context, sink collectors.Sink, c configured, exts []string) ([]string, error) {
	st, err := os.Stat(c.path)
	if err != nil {
		return nil, fmt.Errorf("records: %w", r.configuredPathError(c.key, c.path, err))
	}
	if !st.IsDir() {
		return []string{c.path}, nil
	}
	// Hidden names (.git, a Kubernetes volume's ..data and ..<timestamp>)
	// hold copies or tools' files, not more plans: safefile.Walk passes
	// them over.
	out, err := safefile.Walk(ctx, c.path, safefile.WalkOptions{
		Match: func(name string) bool { return hasExt(name, exts) },
		Fail: func(path string, err error) {
			sink.AddError(r.display(path), fmt.Errorf("records: %s: %w", r.display(path), err))
		},
	})
	if err != nil {
		return nil, fmt.Errorf("records: list %s: %w", r.display(c.path), err)
	}
	return out, nil
}

// configuredPathError says that a configured path cannot be read, naming
// the config's key and line when the loader said where they are.
func (r *Records) configuredPathError(key, path string, err error) error {
	if r.env.Where == nil {
		return fmt.Errorf("%s: %w", r.display(path), safefile.PlainError(path, err))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such file or folder: %s", r.env.Place(key), path)
	}
	return fmt.Errorf("%s: %s: %w", r.env.Place(key), path, safefile.PlainError(path, err))
}

func (r *Records) resolve(p string) string {
	return filepath.Clean(r.env.Path(p))
}

// display names a file relative to Base, so reports and saved estates read
// the same on every machine. It is the file's unit: a directory's display
// is a prefix of its files' displays.
func (r *Records) display(path string) string {
	path = filepath.Clean(path)
	if base := r.env.BaseDir; base != "" {
		if rel, err := filepath.Rel(base, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(path)
}

func hasExt(path string, exts []string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return slices.Contains(exts, ext)
}
