package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const riskyPlan = `id: BF-7001
purpose: Rebuild running balances after a definition change
trigger: definition_change
job_id: balances
range: {start: 2026-01-01, end: 2026-04-01}
owner: erin@example.com
expiry: 2026-05-01
validation_query: SELECT 1
assets_to_remove: [bigquery://p/d/bf_7001_tmp]
strategy: interval
concurrency: 1
pool: backfill_low
depends_on_past: true
write_mode: append
trial_interval: true
consumers_notified: true
elevated_access:
  - principal: serviceAccount:bf@p.iam.gserviceaccount.com
    role: roles/bigquery.dataEditor
`

func TestPlanCheck(t *testing.T) {
	dir := t.TempDir()
	risky := filepath.Join(dir, "bf-7001.yaml")
	if err := os.WriteFile(risky, []byte(riskyPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "bfaudit.yaml")
	if err := os.WriteFile(cfg, []byte(`waivers:
  - rule: BF102
    backfill: bf_7001
    reason: the dataEditor binding is removed by the runbook step
    approver: carol@example.com
    expires: 2026-06-01
`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"findings point at their keys", []string{"plan", "check", risky}, 1,
			[]string{risky + ":18: high BF102", risky + ":14: medium BF107"}},
		{"below --fail-on", []string{"plan", "check", "--fail-on", "critical", risky}, 0, []string{"BF102"}},
		{"waived finding leaves the exit code", []string{"plan", "check", "--fail-on", "high", "-c", cfg, risky}, 0, []string{"BF102", "(waived until 2026-06-01: the dataEditor binding"}},
		{"clean plan", []string{"plan", "check", "../../examples/quickstart/plans/bf-2001-outage-replay.yaml"}, 0, []string{"no findings"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append(tt.args, "--now", "2026-03-01"), &out, &errb)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out.String(), errb.String())
			}
			for _, s := range tt.contains {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output lacks %q:\n%s", s, out.String())
				}
			}
		})
	}
}

// Two files planning the same backfill are both checked, and the clash is
// reported.
func TestPlanCheckSameIDInTwoFiles(t *testing.T) {
	dir := t.TempDir()
	body := "id: BF-77\nstatus: planned\nwrite_mode: append\n"
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	os.WriteFile(a, []byte(body), 0o644)
	os.WriteFile(b, []byte(body), 0o644)
	_, out, stderr := bfaudit(t, "plan", "check", a, b)
	for _, f := range []string{a + ":3: medium BF107", b + ":3: medium BF107"} {
		if !strings.Contains(out, f) {
			t.Errorf("missing %q in:\n%s", f, out)
		}
	}
	if strings.Index(out, a) > strings.Index(out, b) {
		t.Error("findings should be listed file by file")
	}
	if !strings.Contains(stderr, "BF-77 is planned more than once") {
		t.Errorf("clash not reported: %s", stderr)
	}
}

// A plan that cannot be read was not checked: plan check prints the error
// and nothing that reads as a clean result ("no findings", an empty
// report), and exits 2.
func TestPlanCheckUnreadablePlanPrintsOnlyTheError(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("id: BF-9\nrange: 2026-02-01..2026-03-01\n"), 0o644)
	missing := filepath.Join(dir, "missing.yaml")
	for name, file := range map[string]string{"does not parse": bad, "missing": missing} {
		for _, format := range []string{"text", "json", "sarif"} {
			t.Run(name+"/"+format, func(t *testing.T) {
				code, out, stderr := bfaudit(t, "plan", "check", "-f", format, file)
				if code != exitUsage {
					t.Errorf("exit %d, want %d", code, exitUsage)
				}
				if out != "" {
					t.Errorf("stdout must be empty, got:\n%s", out)
				}
				if !strings.Contains(stderr, file) {
					t.Errorf("the error must name the file:\n%s", stderr)
				}
			})
		}
	}
	_, _, stderr := bfaudit(t, "plan", "check", bad)
	if want := bad + `:2: range: expected a mapping with keys start, end, time_zone, got "2026-02-01..2026-03-01"`; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// Trial friction 8: plan check's JSON summary counts the findings it holds.
func TestPlanCheckJSONSummaryCounts(t *testing.T) {
	risky := filepath.Join(t.TempDir(), "bf-7001.yaml")
	write(t, risky, riskyPlan)
	_, out, stderr := bfaudit(t, "plan", "check", "-f", "json", "--now", "2026-03-01", risky)
	r := decodeReport(t, out)
	if len(r.Findings) < 2 {
		t.Fatalf("want the risky plan's findings, got %d: %s", len(r.Findings), stderr)
	}
	agrees(t, r)
	total := 0
	for _, n := range r.Summary.BySeverity {
		total += n
	}
	if total != r.Summary.Findings || r.Summary.Backfills != 1 {
		t.Errorf("summary %+v over %d findings of 1 plan", r.Summary, len(r.Findings))
	}
}
