package records

import (
	"path/filepath"
	"strings"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/internal/codeowners"
	"github.com/bfaudit/bfaudit/internal/safefile"
)

// maxCodeOwnersBytes is GitHub's own limit: a larger CODEOWNERS file is
// not read by GitHub either.
const maxCodeOwnersBytes = 3 << 20

// ownersRead is what reading the CODEOWNERS file gave: the file, when
// it could be read, and the errors to report at its unit.
type ownersRead struct {
	unit   string
	owners *codeOwners
	rules  int
	errs   []error
}

// readCodeOwners reads the configured CODEOWNERS file once per run (nil
// when none is configured). A file that cannot be read, and each bad
// line, is an error at the file's own unit; the plans and records are
// read all the same (a bad line is skipped, as GitHub skips it), only
// without the owners it would give.
func (r *Records) readCodeOwners() *ownersRead {
	if r.CodeOwners == "" {
		return nil
	}
	path := r.resolve(r.CodeOwners)
	o := &ownersRead{unit: r.display(path)}
	b, err := safefile.ReadLimit(path, maxCodeOwnersBytes)
	if err != nil {
		o.errs = append(o.errs, &PlanError{Path: o.unit, Err: safefile.PlainError(path, err)})
		return o
	}
	f, err := codeowners.Parse(o.unit, b)
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		o.errs = append(o.errs, joined.Unwrap()...) // path:line: what
	}
	root, err := filepath.Abs(repoRoot(path))
	if err != nil {
		o.errs = append(o.errs, &PlanError{Path: o.unit, Err: err})
		return o
	}
	o.owners, o.rules = &codeOwners{file: f, root: root}, len(f.Rules)
	return o
}

// report says at the file's unit how many rules it read, or why none.
func (o *ownersRead) report(sink collectors.Sink) {
	if o.owners != nil {
		sink.AddRead(o.unit, "owner rules", o.rules, 0)
	}
	for _, e := range o.errs {
		sink.AddError(o.unit, e)
	}
}

// of returns the owners of a plan or record file.
func (o *ownersRead) of(path string) []string {
	if o == nil {
		return nil
	}
	return o.owners.of(path)
}

// codeOwners is a CODEOWNERS file and the repository root its patterns
// are relative to.
type codeOwners struct {
	file *codeowners.File
	root string
}

// repoRoot is where GitHub reads a CODEOWNERS file's patterns from: the
// repository root, which holds it directly or in .github/ or docs/.
func repoRoot(path string) string {
	dir := filepath.Dir(path)
	if b := filepath.Base(dir); b == ".github" || b == "docs" {
		return filepath.Dir(dir)
	}
	return dir
}

// of returns the owners of a plan or record file, nil for one outside the
// repository or that no line owns.
func (c *codeOwners) of(path string) []string {
	if c == nil {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	rel, err := filepath.Rel(c.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	return c.file.Owners(filepath.ToSlash(rel))
}
