package records

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// collectWithin fails the test instead of hanging when Collect does not
// return (a named pipe read blocks forever).
func collectWithin(t *testing.T, r *Records) (*collectors.TestSink, error) {
	t.Helper()
	sink := collectors.NewTestSink()
	done := make(chan error, 1)
	go func() { done <- collectors.Collect(context.Background(), r, sink) }()
	select {
	case err := <-done:
		return sink, err
	case <-time.After(20 * time.Second):
		t.Fatal("Collect did not return within 20s")
		return nil, nil
	}
}

// errorsAt returns the error texts recorded at exactly scope.
func errorsAt(sink *collectors.TestSink, scope string) []string {
	var out []string
	for _, e := range sink.Errors {
		if e.Scope == scope {
			out = append(out, e.Error)
		}
	}
	return out
}

// The scope of a file's error is spelt exactly as the Location.Path of
// what the file emitted, however the directory was configured; otherwise
// coverage.Answered never matches and a broken plan reads as answered.
func TestErrorScopeIsTheEmittedPath(t *testing.T) {
	for _, configured := range []string{"plans", "./plans/", "plans//", "sub/../plans"} {
		t.Run(configured, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "plans", "a.yaml"), "id: BF-1\nstatus: planned\n")
			writeFile(t, filepath.Join(dir, "plans", "b.yaml"), "id: BF-2\nstatus: done\n")
			writeFile(t, filepath.Join(dir, "records", "r.md"), "---\nbackfill_id: BF-1\nbogus: 1\n---\n")
			os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
			r := inBase(t, &Records{Plans: []string{configured}, Records: []string{"./records"}}, dir)
			sink, err := collectWithin(t, r)
			if err != nil {
				t.Fatal(err)
			}
			paths := map[string]string{}
			for _, b := range sink.Backfills {
				paths[b.ID] = b.Source.Path
			}
			if paths["BF-1"] != "plans/a.yaml" || paths["BF-2"] != "plans/b.yaml" {
				t.Errorf("locations %v, want plans/a.yaml and plans/b.yaml", paths)
			}
			if got := errorsAt(sink, paths["BF-2"]); len(got) != 1 {
				t.Errorf("errors at %q: %v (all: %+v)", paths["BF-2"], got, sink.Errors)
			}
			if got := errorsAt(sink, "records/r.md"); len(got) != 1 || !strings.Contains(got[0], "records/r.md:3:") {
				t.Errorf("record error not at records/r.md: %+v", sink.Errors)
			}
			cov := coverageOf(sink)
			if cov.Answered("plans/b.yaml") || !cov.Answered("plans/a.yaml") || cov.Answered("records/r.md") {
				t.Errorf("answered wrong: %+v", cov)
			}
		})
	}
}

func coverageOf(sink *collectors.TestSink) model.Coverage {
	c := model.Coverage{Status: model.CoverageOK, Errors: sink.Errors}
	if len(sink.Errors) > 0 {
		c.Status = model.CoverageDegraded
	}
	return c
}

// A configured directory that is missing is an error at its own path
// (covering every file that was in it); the other paths are still read.
// Only when nothing configured could be read does the source fail.
func TestMissingDirectoryIsItsUnit(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "plans", "a.yaml"), "id: BF-1\n")
	r := inBase(t, &Records{Plans: []string{"plans"}, Records: []string{"records/"}}, dir)
	sink, err := collectWithin(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Backfills) != 1 || len(errorsAt(sink, "records")) != 1 {
		t.Fatalf("backfills %d, errors %+v; want the plan and one error at records", len(sink.Backfills), sink.Errors)
	}
	if cov := coverageOf(sink); cov.Answered("records/bf-1.md") || !cov.Answered("plans/a.yaml") {
		t.Errorf("a record that was in the missing directory counts as answered: %+v", cov)
	}
	if strings.Contains(sink.Errors[0].Error, dir) {
		t.Errorf("error names the absolute path instead of the unit: %s", sink.Errors[0].Error)
	}
}

// A zero-byte or comment-only plan file is an error at that file, never
// "this file has no backfills": history would resolve the plan's findings.
func TestEmptyPlanFileIsAnError(t *testing.T) {
	for name, body := range map[string]string{"zero bytes": "", "comments": "# nothing yet\n", "empty documents": "---\n---\n"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "plans", "a.yaml"), body)
			writeFile(t, filepath.Join(dir, "plans", "b.yaml"), "id: BF-2\n")
			sink, err := collectWithin(t, inBase(t, &Records{Plans: []string{"plans"}}, dir))
			if err != nil {
				t.Fatal(err)
			}
			got := errorsAt(sink, "plans/a.yaml")
			if len(got) != 1 || !strings.Contains(got[0], "plans/a.yaml: holds no plan") {
				t.Errorf("errors %+v, want one at plans/a.yaml saying it holds no plan", sink.Errors)
			}
			if len(sink.Backfills) != 1 {
				t.Errorf("backfills %v", sink.Backfills)
			}
		})
	}
	if _, err := ParseRecord("r.md", []byte("---\n---\n")); err == nil || !strings.Contains(err.Error(), "r.md:") {
		t.Errorf("empty front matter: %v", err)
	}
}

// A named pipe among plan files is skipped with an error naming it (before
// safefile, reading it blocked the audit forever); a symlink to /dev/zero
// is refused instead of filling memory.
func TestOddFilesAreSkippedNotRead(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "plans", "a.yaml"), "id: BF-1\n")
	if err := syscall.Mkfifo(filepath.Join(dir, "plans", "pipe.yaml"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "plans", "zero.yml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "direct.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := inBase(t, &Records{Plans: []string{"plans"}, Records: []string{"direct.md"}}, dir)
	sink, err := collectWithin(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Backfills) != 1 {
		t.Errorf("backfills %v", sink.Backfills)
	}
	for _, unit := range []string{"plans/pipe.yaml", "plans/zero.yml", "direct.md"} {
		got := errorsAt(sink, unit)
		if len(got) != 1 || !strings.Contains(got[0], unit) || !strings.Contains(got[0], "not a regular file") {
			t.Errorf("errors at %s: %v (all %+v)", unit, got, sink.Errors)
		}
	}
	if _, errs := ReadPlanFile(filepath.Join(dir, "plans", "zero.yml")); len(errs) != 1 {
		t.Errorf("ReadPlanFile on /dev/zero: %v", errs)
	}
	if _, err := ReadKeyLines(filepath.Join(dir, "plans", "pipe.yaml")); err == nil {
		t.Error("ReadKeyLines read a named pipe")
	}
}

// A subdirectory that cannot be listed is an error at its path, covering
// the files in it; its siblings are read.
func TestUnlistableSubdirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root lists any directory; run as a normal user to exercise this")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "plans", "a.yaml"), "id: BF-1\n")
	writeFile(t, filepath.Join(dir, "plans", "team", "b.yaml"), "id: BF-2\n")
	os.Chmod(filepath.Join(dir, "plans", "team"), 0)
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "plans", "team"), 0o755) })
	sink, err := collectWithin(t, inBase(t, &Records{Plans: []string{"plans"}}, dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(errorsAt(sink, "plans/team")) != 1 || len(sink.Backfills) != 1 {
		t.Errorf("errors %+v backfills %d", sink.Errors, len(sink.Backfills))
	}
}

// A configured directory that is a symlink is read (WalkDir did not enter
// it: an empty answer); a Kubernetes ConfigMap volume, whose files are
// symlinks into a hidden ..<timestamp> directory, gives each plan once.
func TestSymlinkedAndMountedDirectories(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "real", "a.yaml"), "id: BF-1\n")
	if err := os.Symlink("real", filepath.Join(dir, "plans")); err != nil {
		t.Fatal(err)
	}
	mount := filepath.Join(dir, "mount")
	writeFile(t, filepath.Join(mount, "..2026_06_01_00_00_00.1", "b.yaml"), "id: BF-2\n")
	os.Symlink("..2026_06_01_00_00_00.1", filepath.Join(mount, "..data"))
	os.Symlink(filepath.Join("..data", "b.yaml"), filepath.Join(mount, "b.yaml"))
	sink, err := collectWithin(t, inBase(t, &Records{Plans: []string{"plans", "mount"}}, dir))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range sink.Backfills {
		got = append(got, b.ID+"@"+b.Source.Path)
	}
	if strings.Join(got, " ") != "BF-2@mount/b.yaml BF-1@plans/a.yaml" && strings.Join(got, " ") != "BF-1@plans/a.yaml BF-2@mount/b.yaml" {
		t.Errorf("plans %v, want BF-1 from plans/a.yaml and BF-2 once from mount/b.yaml", got)
	}
	if len(sink.Errors) != 0 {
		t.Errorf("errors %+v", sink.Errors)
	}
}

// The units are the configured paths and the CODEOWNERS file, each once;
// the config file's own folder is the whole source. A file under two
// configured paths is read once, by the nearer one, and an empty folder
// answers that it holds none.
func TestUnitsAreTheConfiguredPaths(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "plans", "a.yaml"), "id: BF-1\n")
	writeFile(t, filepath.Join(dir, "plans", "b.yaml"), "id: BF-2\n")
	writeFile(t, filepath.Join(dir, "CODEOWNERS"), "* @shop/everyone\n")
	os.MkdirAll(filepath.Join(dir, "records"), 0o755)
	r := inBase(t, &Records{Plans: []string{"plans", "./plans/", "plans/a.yaml"}, Records: []string{"records"}, CodeOwners: "CODEOWNERS"}, dir)
	units, err := r.Units(context.Background())
	if err != nil || strings.Join(units, " ") != "CODEOWNERS plans plans/a.yaml records" {
		t.Fatalf("units %q, %v", units, err)
	}
	sink, err := collectWithin(t, r)
	if err != nil || len(sink.Errors) != 0 {
		t.Fatalf("%v %+v", err, sink.Errors)
	}
	var got []string
	for _, b := range sink.Backfills {
		got = append(got, b.ID+"@"+b.Source.Path+" "+strings.Join(b.CodeOwners, ","))
	}
	slices.Sort(got)
	if strings.Join(got, "; ") != "BF-1@plans/a.yaml @shop/everyone; BF-2@plans/b.yaml @shop/everyone" {
		t.Errorf("plans %v, want each once with its owners", got)
	}
	if !slices.Contains(sink.Reads, model.UnitRead{Scope: "records", What: "decision records"}) {
		t.Errorf("reads %+v: the empty records folder answers none", sink.Reads)
	}

	units, _ = inBase(t, &Records{Plans: []string{"."}}, dir).Units(context.Background())
	if len(units) != 1 || units[0] != "" {
		t.Errorf("the config's folder declared as %q, want the whole source", units)
	}
}
