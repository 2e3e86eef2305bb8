package records_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/records"
	"github.com/bfaudit/bfaudit/correlate"
	"github.com/bfaudit/bfaudit/testkit/faultmatrix"
)

// The plan for BF-7001 finished long before the audit and grants access
// without an expiry (BF102) and has no trial interval (BF110); its record
// lacks the validation query and the final data location (BF009).
const (
	plan7001 = `id: BF-7001
purpose: replay refunds after the filter bug
trigger: bug_fix
job_id: daily_revenue
range: {start: 2025-10-01, end: 2026-01-01}
owner: data-eng@example.com
approver: lead@example.com
classification: financial
status: replayed
timeline: {started_at: 2026-01-05, completed_at: 2026-01-10}
expiry: 2026-02-01
validation_query: SELECT 1
assets_to_remove: [bigquery://proj/ds/bf_7001_tmp]
elevated_access:
  - {principal: "serviceAccount:bf-7001@proj.iam.gserviceaccount.com", role: roles/bigquery.dataEditor}
cleanup_owner: data-eng@example.com
strategy: interval
concurrency: 1
pool: backfill
write_mode: partition_overwrite
side_effects_disabled: true
consumers_notified: true
keep_evidence: true
`
	record7001 = "---\nbackfill_id: BF-7001\npurpose: replay refunds\nrange: {start: 2025-10-01, end: 2026-01-01}\njob_id: daily_revenue\napproving_owner: lead@example.com\n---\n# BF-7001\n"
	other      = "id: BF-7002\npurpose: other\nowner: x@example.com\nstatus: planned\n"
)

func fixture(t *testing.T) (dir string, c collectors.Collector) {
	t.Helper()
	dir = t.TempDir()
	for name, body := range map[string]string{
		"plans/bf-7001.yaml": plan7001, "plans/bf-7002.yaml": other, "records/bf-7001.md": record7001,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &records.Records{Plans: []string{"plans/"}, Records: []string{"records"}}
	if err := r.Init(collectors.Env{Source: "records", BaseDir: dir, Selector: correlate.MustSelector(), Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	return dir, r
}

func unit(kind, scope string, breakIt func(t *testing.T, dir string)) faultmatrix.Unit {
	return faultmatrix.Unit{Kind: kind, Scope: scope, Setup: func(t *testing.T) (collectors.Collector, func()) {
		dir, c := fixture(t)
		return c, func() { breakIt(t, dir) }
	}}
}

func corrupt(name string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("id: BF-7001\nstatus: [unclosed\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func remove(names ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		for _, n := range names {
			if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestFaultMatrix(t *testing.T) {
	faultmatrix.Run(t, "records", []faultmatrix.Unit{
		unit("source", "", remove("plans", "records")),
		unit("directory", "plans", remove("plans")),
		unit("directory", "records", remove("records")),
		unit("file", "plans/bf-7001.yaml", corrupt("plans/bf-7001.yaml")),
		unit("file", "plans/bf-7001.yaml", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "plans/bf-7001.yaml"), nil, 0o644) // emptied: not "no plans"
		}),
		unit("file", "records/bf-7001.md", corrupt("records/bf-7001.md")),
	})
	// A file deleted from a directory that was listed is not a fault: the
	// directory answered, and the record is gone.
}
